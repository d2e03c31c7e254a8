// `blksim report --timeline`: the request timeline of a run (the --perfetto trace, see
// models/report/perfetto_writer.h) drawn by a small script of the page's own on a canvas,
// so that the page works offline: a row per track (cores, hardware queues, the drive, the
// requests, the counters), zoom with the wheel or the buttons, drag to pan, hover for a
// slice's details (a request's stages) and its flow from Q to C. The page's URL may end in
// #hover=first: the first request is then shown as if hovered (for a screenshot or a check
// of the page without a mouse).
#pragma once

#include <string_view>

#include "tools/blksim/html_page.h"

namespace blksim::cli {

// Appends the timeline of `trace_json` (a trace-event JSON document) to `page`.
void add_timeline(HtmlPage& page, std::string_view trace_json);

}  // namespace blksim::cli
