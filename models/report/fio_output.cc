#include "models/report/fio_output.h"

namespace blksim::report {

std::optional<OutputFormats> parse_output_formats(std::string_view s) {
    OutputFormats f;
    // fio's output_format_parse(): strsep on ',', each name must be one fio knows.
    for (;;) {
        const std::size_t comma = s.find(',');
        const std::string_view name = s.substr(0, comma);
        if (name == "normal")
            f.normal = true;
        else if (name == "json")
            f.json = true;
        else if (name == "json+")
            f.json = f.json_plus = true;
        else if (name == "terse")
            f.terse = true;
        else
            return std::nullopt;
        if (comma == std::string_view::npos)
            break;
        s.remove_prefix(comma + 1);
    }
    return f;
}

std::string format_report(const RunResult& r, const OutputFormats& f, bool group_reporting) {
    std::string out;
    if (f.normal)
        out += format_normal_header(r);
    if (f.terse)
        out += format_terse(r, group_reporting);
    if (f.json)
        out += format_json(r, group_reporting, f.json_plus);
    if (f.normal)
        out += format_normal_body(r, group_reporting) + format_blksim_extras(r);
    return out;
}

}  // namespace blksim::report
