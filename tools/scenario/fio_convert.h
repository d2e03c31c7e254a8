// fio input: the jobs of a fio job file or command line (fio_job.h) become the scenario's
// "jobs" array, each value remembered with the place it was written, so that the schema and
// the decoder check them exactly as they check a JSON scenario's and name that place.
#pragma once

#include <string>
#include <vector>

#include "tools/scenario/decode_state.h"
#include "tools/scenario/fio_job.h"
#include "tools/scenario/scenario.h"

namespace blksim::scenario {

// fio input for a load: blksim fio's command line, or else the scenario's "fio" key.
struct FioInput {
    const std::vector<std::string>* args = nullptr;  // blksim fio: the fio command line
    std::string scheduler;                            // blksim fio --scheduler
    FioPolicy policy;
    fio::Settings settings;                           // out: fio's own command-line options
};

// Replaces the doc's jobs by those of the fio input. Options blksim does not support are
// a warning (FioPolicy::warnings) or, when fatal or strict, an error.
void expand_fio(json& doc, Reporter& rep, const LoadContext& ctx, FioInput& fio);

// --scheduler: every device's queue gets `scheduler` (an entry is made for a device without
// one); nothing when it is empty. expand_fio calls it; a scenario without fio jobs too.
void apply_scheduler(json& doc, Reporter& rep, const std::string& scheduler);

}  // namespace blksim::scenario
