// `blksim import-disksim` and `blksim validate-disk`: DiskSim's drive descriptions as HDD
// profiles, and the HDD model against the real drives' validation traces
// (tools/disksim/, docs/disksim.md).
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "tools/blksim/commands.h"
#include "tools/blksim/output_file.h"
#include "tools/disksim/demerit.h"
#include "tools/disksim/import.h"
#include "tools/disksim/param_file.h"
#include "tools/disksim/replay.h"
#include "tools/disksim/validation_trace.h"
#include "tools/scenario/scenario.h"

namespace blksim::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;


// DiskSim's own error on each drive (docs/references.md §10), shown beside
// blksim's so the report says how the two compare.
const std::map<std::string, double> kDisksimDemerit = {
    {"ibm18es", 0.135}, {"cheetah9LP", 0.107}, {"atlas10k", 0.268},
    {"atlas_III", 0.378}, {"barracuda", 0.349}, {"cheetah4LP", 0.318},
};

std::string devices_dir() { return scenario::default_scenario_dir() + "/devices"; }

int run_import(const ImportOptions& o) {
    const json prof = disksim::import_diskspecs(o.diskspecs);
    const std::string text = prof.dump(2) + "\n";
    // Never into the source tree: a profile goes into scenarios/devices/ as a change of its own.
    const std::string path = o.out.empty() ? prof["name"].get<std::string>() + ".json" : o.out;
    write_output(path, o.out.empty() ? "" : "--out", text);
    if (o.out == "-")
        return 0;
    fmt::print(stderr, "blksim: wrote {} ({} zones, {} blocks)\n", path,
               prof["params"]["measured"]["layout"]["zones"].size(), prof["params"]["sectors"].get<uint64_t>());
    return 0;
}

std::string cdf_path(const std::string& base, const std::string& drive, bool many) {
    if (!many)
        return base;
    const fs::path p(base);
    return (p.parent_path() / (p.stem().string() + "-" + drive + p.extension().string())).string();
}

json stats_json(const disksim::Summary& s) {
    return json{{"mean", s.mean}, {"stddev", s.stddev}, {"min", s.min}, {"p10", s.p10}, {"p25", s.p25},
                {"p50", s.p50},   {"p75", s.p75},       {"p90", s.p90}, {"p99", s.p99}, {"max", s.max}};
}

// One trace's replay summarised: the service times measured and simulated, and how the
// simulated cache hits compare with the trace's outcome column.
struct DriveValidation {
    std::string drive, trace_path, profile;
    uint64_t requests = 0, reads = 0;
    uint64_t col_hit = 0, col_miss = 0, col_multi = 0, agree = 0, sim_hits = 0;
    disksim::Summary measured, simulated;
    double demerit = 0, demerit_pct = 0, agreement = 0;
    std::optional<double> disksim_demerit;  // DiskSim's own on this drive, when known
};

// The trace's measured service times, ms.
std::vector<double> measured_ms(const std::vector<disksim::TraceRecord>& trace) {
    std::vector<double> measured;
    measured.reserve(trace.size());
    for (const auto& r : trace)
        measured.push_back(r.service_us / 1000.0);
    return measured;
}

DriveValidation compare_drive(const std::string& drive, const std::string& trace_path, const std::string& profile,
                              const std::vector<disksim::TraceRecord>& trace, const std::vector<double>& measured,
                              const disksim::ReplayResult& res) {
    DriveValidation v;
    v.drive = drive;
    v.trace_path = trace_path;
    v.profile = profile;
    v.requests = trace.size();
    for (size_t i = 0; i < trace.size(); ++i) {
        const auto& r = trace[i];
        v.reads += !r.write;
        const bool col_is_hit = r.outcome == disksim::Outcome::HIT;
        v.col_hit += col_is_hit;
        v.col_miss += r.outcome == disksim::Outcome::MISS;
        v.col_multi += r.outcome == disksim::Outcome::DOUBLE || r.outcome == disksim::Outcome::TRIPLE;
        v.sim_hits += res.simulated_hit[i];
        v.agree += (res.simulated_hit[i] != 0) == col_is_hit;
    }
    v.measured = disksim::summarize(measured);
    v.simulated = disksim::summarize(res.simulated_ms);
    v.demerit = disksim::demerit(measured, res.simulated_ms);
    v.demerit_pct = v.measured.mean > 0 ? 100.0 * v.demerit / v.measured.mean : 0.0;
    v.agreement = trace.empty() ? 0.0 : 100.0 * static_cast<double>(v.agree) / static_cast<double>(trace.size());
    if (const auto ref = kDisksimDemerit.find(drive); ref != kDisksimDemerit.end())
        v.disksim_demerit = ref->second;
    return v;
}

// --requests: each request's measured and simulated service time and cache outcome.
std::string requests_csv(const std::vector<disksim::TraceRecord>& trace, const disksim::ReplayResult& res) {
    std::string csv = "line,op,block,blocks,trace_outcome,measured_ms,simulated_ms,simulated_outcome\n";
    for (size_t i = 0; i < trace.size(); ++i) {
        const auto& r = trace[i];
        csv += fmt::format("{},{},{},{},{},{:.3f},{:.3f},{}\n", r.line, r.write ? 'W' : 'R', r.lba, r.blocks,
                           disksim::outcome_name(r.outcome), r.service_us / 1000.0, res.simulated_ms[i],
                           res.simulated_hit[i] ? "Hit" : "Miss");
    }
    return csv;
}

json validation_json(const DriveValidation& v, const disksim::ReplayResult& res) {
    json j{{"drive", v.drive},
           {"trace", v.trace_path},
           {"profile", v.profile},
           {"requests", v.requests},
           {"reads", v.reads},
           {"writes", v.requests - v.reads},
           {"measured_mean_ms", v.measured.mean},
           {"simulated_mean_ms", v.simulated.mean},
           {"demerit_ms", v.demerit},
           {"demerit_pct", v.demerit_pct},
           {"measured_ms", stats_json(v.measured)},
           {"simulated_ms", stats_json(v.simulated)},
           {"cache", json{{"simulated_hits", v.sim_hits},
                          {"simulated_misses", v.requests - v.sim_hits},
                          {"trace_hit", v.col_hit},
                          {"trace_miss", v.col_miss},
                          {"trace_double_triple", v.col_multi},
                          {"agreement_pct", v.agreement}}},
           {"media_ms_mean", json{{"seek", res.seek_ms_mean}, {"rotation", res.rotation_ms_mean},
                                  {"transfer", res.transfer_ms_mean}}},
           {"replay_wall_s", res.wall_s}};
    if (v.disksim_demerit)
        j["disksim_demerit_ms"] = *v.disksim_demerit;
    return j;
}

std::string validation_text(const DriveValidation& v, const disksim::ReplayResult& res) {
    std::string text = fmt::format("{}: {} requests ({} reads, {} writes) on {}\n", v.drive, v.requests, v.reads,
                                   v.requests - v.reads, v.profile);
    text += fmt::format("  {:<10} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8} {:>8}  (ms)\n", "", "mean", "stddev",
                        "p10", "p25", "p50", "p75", "p90", "p99", "max");
    for (const auto& [label, x] : {std::pair{"measured", v.measured}, std::pair{"simulated", v.simulated}})
        text += fmt::format("  {:<10} {:8.3f} {:8.3f} {:8.3f} {:8.3f} {:8.3f} {:8.3f} {:8.3f} {:8.3f} {:8.3f}\n", label,
                            x.mean, x.stddev, x.p10, x.p25, x.p50, x.p75, x.p90, x.p99, x.max);
    text += fmt::format("  demerit: {:.3f} ms ({:.1f} % of the measured mean)", v.demerit, v.demerit_pct);
    if (v.disksim_demerit)
        text += fmt::format("; DiskSim's: {:.3f} ms ({:.1f}x)", *v.disksim_demerit, v.demerit / *v.disksim_demerit);
    text += "\n";
    text += fmt::format("  cache: simulated {} buffer hits / {} media; trace column {} Hit, {} Miss, {} Doub/Trip; "
                        "agreement {:.1f} %\n",
                        v.sim_hits, v.requests - v.sim_hits, v.col_hit, v.col_miss, v.col_multi, v.agreement);
    text += fmt::format("  media ops (mean ms): seek {:.3f}, rotation {:.3f}, transfer {:.3f}; replay {:.3f} s wall\n",
                        res.seek_ms_mean, res.rotation_ms_mean, res.transfer_ms_mean, res.wall_s);
    return text;
}

int run_validate(const ValidateDiskOptions& o) {
    json all = json::array();
    std::string text;
    for (const std::string& trace_path : o.traces) {
        const std::string drive = fs::path(trace_path).stem().string();
        const auto prof = disksim::load_hdd_profile(o.device.empty() ? drive : o.device, devices_dir());
        const auto trace = disksim::read_validation_trace(trace_path, o.limit);
        // Opened before the replay, put in place after it.
        OutputFile cdf_out, requests_out;
        if (!o.cdf.empty())
            cdf_out.open(cdf_path(o.cdf, drive, o.traces.size() > 1), "--cdf");
        if (!o.requests.empty())
            requests_out.open(cdf_path(o.requests, drive, o.traces.size() > 1), "--requests");
        const auto res = disksim::replay_trace(prof.cfg, trace, trace_path);
        const std::vector<double> measured = measured_ms(trace);
        const DriveValidation v = compare_drive(drive, trace_path, prof.path, trace, measured, res);
        if (cdf_out.is_open()) {
            cdf_out.write(disksim::cdf_csv(measured, res.simulated_ms));
            cdf_out.finish();
        }
        if (requests_out.is_open()) {
            requests_out.write(requests_csv(trace, res));
            requests_out.finish();
        }
        all.push_back(validation_json(v, res));
        text += validation_text(v, res);
    }
    if (o.format == "json")
        std::cout << all.dump(2) << "\n";
    else
        std::cout << text;
    return 0;
}

}  // namespace

void add_disksim_commands(CLI::App& app, DisksimCommands& d) {
    d.import_cmd = app.add_subcommand("import-disksim",
                                  "convert a DiskSim drive description (NAME.diskspecs with its .model and .seek) into "
                                  "an HDD profile NAME.json (copy it to scenarios/devices/ to use it by name)");
    d.import_cmd->add_option("diskspecs", d.import_opt.diskspecs, "the .diskspecs file")->required();
    d.import_cmd->add_option("--out", d.import_opt.out, "where to write the profile ('-' = stdout; default NAME.json in the current directory)");

    d.validate_cmd = app.add_subcommand("validate-disk",
                                    "replay DiskSim validation traces on the HDD model and compare the service times "
                                    "with the measured ones (demerit figure)");
    d.validate_cmd->add_option("trace", d.validate_opt.traces, "validation trace(s): R|W outcome block blocks service-us idle-us")
        ->required();
    d.validate_cmd->add_option("--device", d.validate_opt.device,
                           "HDD profile name or .json path (default: the profile named like the trace file)");
    d.validate_cmd->add_option("--format", d.validate_opt.format, "normal or json")->check(CLI::IsMember({"normal", "json"}));
    d.validate_cmd->add_option("--limit", d.validate_opt.limit, "replay only the first N requests of each trace");
    d.validate_cmd->add_option("--cdf", d.validate_opt.cdf,
                           "write both CDFs as CSV (fraction,measured_ms,simulated_ms) for scripts/plot-disk-cdf.py; "
                           "with several traces FILE-<drive>.csv each");
    d.validate_cmd->add_option("--requests", d.validate_opt.requests,
                           "write every request's measured and simulated service time as CSV (line, op, block, "
                           "blocks, outcomes); with several traces FILE-<drive>.csv each");
}

int run_disksim_command(const DisksimCommands& d) {
    try {
        if (d.import_cmd && *d.import_cmd)
            return run_import(d.import_opt);
        if (d.validate_cmd && *d.validate_cmd)
            return run_validate(d.validate_opt);
    } catch (const disksim::DisksimError& e) {
        fmt::print(stderr, "blksim: {}\n", e.what());
        return 2;
    } catch (const OutputError& e) {
        fmt::print(stderr, "blksim: {}\n", e.what());
        return 2;
    }
    return -1;
}

}  // namespace blksim::cli
