// The scenario loader's entry points: a scenario file or text, or a fio command line on a
// machine, goes through the same steps: parse the JSON (json_util.h), apply the --set
// overrides, turn fio input into jobs (fio_convert.h), validate against the schema
// (schema_check.h), decode section by section (decode.h).
#include "tools/scenario/scenario.h"

#include <filesystem>

#include "models/workload/engine_kinds.h"
#include "tools/scenario/data_dir.h"
#include "tools/scenario/decode.h"
#include "tools/scenario/fio_convert.h"
#include "tools/scenario/fio_machine.h"
#include "tools/scenario/job_options.h"
#include "tools/scenario/json_util.h"
#include "tools/scenario/schema_check.h"

namespace blksim::scenario {

namespace fs = std::filesystem;

namespace {

Scenario load_doc(json doc, Reporter& rep, const std::string& path, const std::vector<std::string>& sets,
                  const std::string& base_dir, FioInput* fio) {
    fs::path dir = fs::path(path).parent_path();
    if (dir.empty()) dir = ".";
    LoadContext ctx{dir, base_dir};

    // With fio jobs, "jobs.N..." overrides apply to them once they are in place, and
    // "queues..." ones once --scheduler has made the queue entries, so that the scheduler's
    // tunables can be set: --scheduler kyber --set queues.0.iosched.read_lat_nsec=1000000.
    // A scenario's own jobs with --scheduler: its queue overrides follow it in the same way.
    ctx.fio_jobs = fio && (fio->args || (doc.is_object() && doc.contains("fio")));
    const bool scheduler = fio && !fio->scheduler.empty();
    std::vector<std::string> job_sets;
    for (const std::string& set : sets) {
        if ((ctx.fio_jobs && set.starts_with("jobs.")) || ((ctx.fio_jobs || scheduler) && set.starts_with("queues")))
            job_sets.push_back(set);
        else apply_set(doc, set, rep);
    }
    if (ctx.fio_jobs) expand_fio(doc, rep, ctx, *fio);
    else if (scheduler && doc.is_object()) apply_scheduler(doc, rep, fio->scheduler);
    for (const std::string& set : job_sets) apply_set(doc, set, rep);
    normalize_fio_sections(doc, rep);

    const SchemaChecker checker(load_schema_document(base_dir), (fs::path(base_dir) / "schema.json").string());
    checker.check(doc, rep);

    Scenario s = decode_scenario(doc, rep, ctx, checker.document());
    s.path = path;
    return s;
}

Scenario load(std::string_view text, const std::string& path, const std::vector<std::string>& sets,
              const std::string& base_dir, FioInput* fio = nullptr) {
    Reporter rep(path);
    FioInput scenario_fio;  // a scenario's "fio" key, when no fio input was given
    return load_doc(parse_json(text, rep), rep, path, sets, base_dir, fio ? fio : &scenario_fio);
}

}  // namespace

Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets, const std::string& base_dir) {
    const Reporter rep(path);
    return load(read_text_file(path, rep, "scenario"), path, sets, base_dir);
}

Scenario load_scenario_text(std::string_view text, const std::string& path_for_messages,
                            const std::vector<std::string>& sets, const std::string& base_dir) {
    return load(text, path_for_messages, sets, base_dir);
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets, const FioPolicy& policy,
                       const std::string& base_dir) {
    return load_scenario(path, sets, policy, std::string(), base_dir);
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& sets, const FioPolicy& policy,
                       const std::string& scheduler, const std::string& base_dir) {
    const Reporter rep(path);
    FioInput fio;
    fio.policy = policy;
    fio.scheduler = scheduler;
    return load(read_text_file(path, rep, "scenario"), path, sets, base_dir, &fio);
}

FioRun load_fio_command(const FioCommand& cmd, const std::string& base_dir) {
    std::string path;
    json doc = cmd.device.empty() ? diskless_machine(path) : fio_machine(cmd.device, base_dir, path);
    FioInput fio;
    fio.args = &cmd.fio_args;
    fio.scheduler = cmd.scheduler;
    fio.policy = cmd.policy;
    Reporter rep(path);
    FioRun run;
    run.scenario = load_doc(std::move(doc), rep, path, cmd.sets, base_dir, &fio);
    // As fio: only a diskless engine runs without a file (size= bounds its I/O).
    if (cmd.device.empty())
        for (const workload::JobConfig& j : run.scenario.machine.jobs)
            if (j.ioengine != workload::IoEngine::NULL_IO)
                throw ScenarioError("job " + squote(j.name) + ": ioengine=" +
                                    std::string(workload::engine_kind(j.ioengine).name) +
                                    " needs a device: give --device (a device profile, nvme, nullb or a scenario "
                                    "file); only ioengine=null runs without one");
    run.parse_only = fio.settings.parse_only;
    if (fio.settings.output) run.output_file = fio.settings.output->value.value_or("");
    return run;
}

std::string default_scenario_dir() { return (data_dir() / "scenarios").string(); }

}  // namespace blksim::scenario
