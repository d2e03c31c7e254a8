// fio input: the options of each job are modelled (they go into the job object), ignored
// (they cannot change what a simulation shows) or not supported (gathered for one message).
#include "tools/scenario/fio_convert.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include "models/sched/scheduler_kinds.h"
#include "models/workload/engine_kinds.h"
#include "tools/input/input_file.h"
#include "tools/input/nesting.h"
#include "tools/scenario/job_options.h"

namespace blksim::scenario {

namespace fs = std::filesystem;

namespace {

// fio options (canonical names, see fio_vocabulary.inc) that a fio job file or command line
// may carry and that cannot change what a simulation shows: where files live, the fio
// process (threads, memory, users, cgroups), data content, random-map bookkeeping, error
// handling, what fio prints anyway, and the settings of features that are off unless
// another option (itself listed as unsupported) turns them on. Accepted and dropped.
constexpr std::string_view kIgnoredFioOptions[] = {
    // files and the fio process
    "description", "directory", "filename_format", "unique_filename", "lockfile", "opendir",
    "allow_file_create", "allow_mounted_write", "create_serialize", "create_fsync", "create_on_open",
    "unlink", "unlink_each_loop", "overwrite", "fallocate", "fadvise_hint", "invalidate", "openfiles",
    "file_service_type", "nice", "uid", "gid", "cgroup", "cgroup_weight", "cgroup_nodelete",
    "exec_prerun", "exec_postrun", "lockmem", "mem",
    "hugepage-size", "clocksource", "gtod_cpu",
    // data content and random-offset bookkeeping
    "zero_buffers", "refill_buffers", "scramble_buffers", "buffer_pattern", "buffer_compress_percentage",
    "buffer_compress_chunk", "dedupe_percentage", "dedupe_mode", "dedupe_working_set_percentage",
    "dedupe_global", "randrepeat", "allrandrepeat", "norandommap", "random_generator",
    // errors (a simulation has none) and what fio reports anyway
    "continue_on_error", "ignore_error", "error_dump", "disable_lat", "disable_clat", "disable_slat",
    "disable_bw_measurement", "significant_figures", "disk_util",
    // settings of verify whose cost is the same per byte, or that only matter when data
    // could be wrong (it is not modelled, so a verify never fails)
    "verify_interval", "verify_offset", "verify_pattern", "verify_fatal", "verify_dump",
    "verify_backlog_batch", "verify_state_save", "verify_state_load",
    // options of fio's built-in profiles (act, tiobench), which do nothing without profile=
    "threads", "block", "dir", "numruns", "load", "prep", "device-names", "read-req-num-512-blocks",
    "large-block-op-kbytes", "test-duration", "threads-per-queue",
    // engine details whose CPU cost the model does not separate
    "fixedbufs", "registerfiles", "nonvectored", "userspace_reap",
};

// fio options blksim does not model, whose value here means "off" (fio's default): ignored.
struct HarmlessFioValue {
    std::string_view option;  // canonical name
    std::string_view values;  // '|'-separated
};
constexpr HarmlessFioValue kHarmlessFioValues[] = {
    {"verify_backlog", "0"},       {"verify_async", "0"},  {"experimental_verify", "0"},
    {"loops", "1"},                {"startdelay", "0"},
    {"nrfiles", "1"},              {"zonemode", "none"},      {"unified_rw_reporting", "0|none"},
    {"stats", "1"},
    {"buffered", "0"},             {"io_submit_mode", "inline"},
    {"verify_only", "0"},          {"trim_percentage", "0"},  {"create_only", "0"},  {"pre_read", "0"},
};

bool ignored_fio_option(std::string_view canonical, const std::optional<std::string>& value) {
    if (std::find(std::begin(kIgnoredFioOptions), std::end(kIgnoredFioOptions), canonical) != std::end(kIgnoredFioOptions))
        return true;
    for (const HarmlessFioValue& h : kHarmlessFioValues) {
        if (h.option != canonical) continue;
        const std::string v = value.value_or("1");  // a bare flag means 1
        for (std::string_view list = h.values;;) {
            const size_t bar = list.find('|');
            if (list.substr(0, bar) == v) return true;
            if (bar == std::string_view::npos) break;
            list.remove_prefix(bar + 1);
        }
    }
    return false;
}

// The options blksim does not support, gathered over all jobs for one message.
class Unsupported {
public:
    // fatal: the job cannot run without it (an engine, a pattern, a scheduler blksim lacks).
    void add(const fio::Option& o, const std::string& why, bool fatal) {
        const std::string item = o.raw + (why.empty() ? "" : " (" + why + ")");
        fatal_ = fatal_ || fatal;
        for (Entry& e : entries_)
            if (e.item == item) {
                if (std::find(e.places.begin(), e.places.end(), o.where.str()) == e.places.end())
                    e.places.push_back(o.where.str());
                return;
            }
        entries_.push_back({item, {o.where.str()}, fatal});
    }
    bool empty() const { return entries_.empty(); }
    bool fatal() const { return fatal_; }
    // "ioengine=net (...) at job.fio:3; verify=md5 at job.fio:7; rate=10m at job.fio:9, job.fio:20":
    // what the job cannot run without first.
    std::string list() const {
        std::string out;
        for (const bool fatal : {true, false})
            for (const Entry& e : entries_) {
                if (e.fatal != fatal) continue;
                if (!out.empty()) out += "; ";
                out += e.item + " at " + join(e.places);
            }
        return out;
    }

private:
    struct Entry {
        std::string item;
        std::vector<std::string> places;
        bool fatal;
    };
    std::vector<Entry> entries_;
    bool fatal_ = false;
};

template <class Table>
bool in_table(const Table& table, std::string_view name) {
    return std::any_of(std::begin(table), std::end(table), [&](const auto& e) { return e.name == name; });
}

template <class Table>
std::string table_names(const Table& table) {
    std::vector<std::string> names;
    for (const auto& e : table) names.emplace_back(e.name);
    return join(names);
}

// The options of one fio job as a JSON job object.
class FioJobConverter {
public:
    FioJobConverter(Reporter& rep, Unsupported& unsupported, const std::string& scheduler_override,
                    std::vector<std::string>& notes)
        : rep_(rep), unsupported_(unsupported), scheduler_override_(scheduler_override), notes_(notes) {}

    json convert(const fio::Job& job, const std::string& ptr) {
        ptr_ = ptr;
        obj_ = json{{"name", job.name}};
        keys_.clear();
        rep_.note_origin(ptr, job.where.str() + ": job " + squote(job.name));
        rep_.note_origin(child(ptr, "name"), job.where.str() + ": [" + job.name + "]");
        // The engines named in the job's sections decide which engine options it may have
        // (fio reads a section's engine options for the engine it has at that point).
        engines_.clear();
        other_engine_.clear();
        last_.clear();
        for (size_t i = 0; i < job.options.size(); ++i) {
            const fio::Option& o = job.options[i];
            const std::string c = canonical(o);
            last_[c] = i;
            if (c != "ioengine" || !o.value) continue;
            engines_.push_back(*o.value);
            if (!in_table(workload::engine_names(), *o.value)) other_engine_ = *o.value;
        }
        if (engines_.empty()) engines_.push_back("psync");  // fio's default on Linux
        for (size_t i = 0; i < job.options.size(); ++i) option(job.options[i], last_[canonical(job.options[i])] == i);
        return obj_;
    }

private:
    bool has_engine_option(const fio::OptionInfo& info) const {
        return std::any_of(engines_.begin(), engines_.end(), [&](const std::string& e) { return info.of_engine(e); });
    }

    static std::string canonical(const fio::Option& o) {
        const fio::OptionInfo* info = fio::find_option(o.name);
        return std::string(info ? info->canonical : std::string_view(o.name));
    }

    [[noreturn]] void fail(const fio::Option& o, const std::string& msg) const {
        throw ScenarioError(o.describe() + ": " + msg);
    }

    // The value of a modelled option goes into the job object; a later value of the same
    // option (or of an alias of it) replaces an earlier one, as in fio.
    void set(const fio::Option& o, std::string_view key, std::string_view canon, const std::string& value) {
        const std::string c(canon);
        if (const auto it = keys_.find(c); it != keys_.end()) obj_.erase(it->second);
        keys_[c] = std::string(key);
        obj_[std::string(key)] = value;
        rep_.note_origin(child(ptr_, key), o.describe());
    }

    // effective: the job's last value of this option (earlier ones are checked, then dropped).

    // effective: the job's last value of this option (earlier ones are checked, then dropped).
    void option(const fio::Option& o, bool effective) {
        const fio::OptionInfo* info = fio::find_option(o.name);
        const FioOption* model = find_fio_option(o.name);
        if (!model && info) model = find_fio_option(info->canonical);
        if (!info && !model) return unknown(o, effective);
        check_allowed(o, info);
        if (!effective) return;  // a later value replaces it, as in fio
        const std::string value = o.value.value_or("1");  // a bare flag means 1
        if (model) return modelled(o, *model, value);
        not_modelled(o, canonical(o), value);
    }

    // An option neither fio's vocabulary nor blksim knows.
    void unknown(const fio::Option& o, bool effective) {
        // An engine blksim does not have may have options fio's vocabulary lacks (the
        // vocabulary holds only the engines built into Debian's fio): count them as its.
        if (!other_engine_.empty()) {
            if (effective) unsupported_.add(o, "an option of ioengine=" + other_engine_ + "?", false);
            return;
        }
        const std::string guess = fio::closest_option(o.name);
        fail(o, "unknown fio option " + squote(o.name) + (guess.empty() ? "" : " (did you mean " + guess + "?)"));
    }

    // What fio itself refuses: a missing value, an option of another engine.
    void check_allowed(const fio::Option& o, const fio::OptionInfo* info) const {
        if (info && info->needs_value && !o.value) fail(o, "option " + squote(o.name) + " needs a value (" + o.name + "=...)");
        if (info && !info->engines.empty() && other_engine_.empty() && !has_engine_option(*info)) {
            std::string engines(info->engines);
            std::replace(engines.begin(), engines.end(), ',', ' ');
            fail(o, squote(o.name) + " is an option of the ioengines " + engines + ", not of ioengine=" + engines_.back() +
                        " (fio refuses it: \"Bad option\")");
        }
    }

    void modelled(const fio::Option& o, const FioOption& model, const std::string& value) {
        const std::string canon(model.canonical);
        if (canon == "name") {
            obj_["name"] = value;
            rep_.note_origin(child(ptr_, "name"), o.describe());
            return;
        }
        if ((canon == "ioengine" || canon == "rw" || canon == "ioscheduler") && value.empty())
            fail(o, "empty value" + std::string(o.raw.find("${") != std::string::npos
                                                    ? " (an environment variable that is not set gives '', as in fio)"
                                                    : ""));
        if (canon == "ioengine" && !in_table(workload::engine_names(), value))
            return unsupported_.add(o, "blksim's engines: " + table_names(workload::engine_names()), true);
        if (canon == "ioscheduler") return ioscheduler(o, model, value);
        if (canon == "rw") return rw(o, model, value);
        // write_lat_log without a name: fio names the files after the job ("" here).
        if ((canon == "write_lat_log" || canon == "write_bw_log" || canon == "write_iops_log") && !o.value)
            return set(o, model.name, canon, std::string());
        if (canon == "direct" && (value == "0" || value == "false"))
            return unsupported_.add(o, "buffered I/O: the page cache is not modelled, runs as direct I/O", false);
        set(o, model.name, canon, value);
    }

    void ioscheduler(const fio::Option& o, const FioOption& model, const std::string& value) {
        if (!scheduler_override_.empty()) {
            notes_.push_back(o.describe() + ": replaced by --scheduler " + scheduler_override_);
            return;
        }
        if (sched::find_scheduler_kind(value) == nullptr)
            return unsupported_.add(o, "blksim's schedulers: " + join(supported_schedulers()), true);
        set(o, model.name, model.canonical, value);
    }

    void rw(const fio::Option& o, const FioOption& model, const std::string& value) {
        const size_t colon = value.find(':');
        const std::string pattern = value.substr(0, colon);
        if (!in_table(kRwPatterns, pattern))
            return unsupported_.add(o, "blksim's patterns: " + table_names(kRwPatterns), true);
        if (colon != std::string::npos) {
            unsupported_.add(o, "the :" + value.substr(colon + 1) + " offset modifier, runs as rw=" + pattern, false);
            return set(o, model.name, model.canonical, pattern);
        }
        set(o, model.name, model.canonical, value);
    }

    void not_modelled(const fio::Option& o, const std::string& canon, const std::string& value) {
        if (canon == "buffered" && value != "0")
            return unsupported_.add(o, "buffered I/O: the page cache is not modelled, runs as direct I/O", false);
        if (canon == "zonemode" && value != "none")  // the job needs a kind of device blksim has not
            return unsupported_.add(o, "zoned block devices are not modelled: docs/fio.md, Zoned block devices", true);
        if (ignored_fio_option(canon, o.value)) return;
        unsupported_.add(o, "", false);
    }

    Reporter& rep_;
    Unsupported& unsupported_;
    const std::string& scheduler_override_;
    std::vector<std::string>& notes_;
    std::string ptr_;
    json obj_;
    std::map<std::string, std::string> keys_;  // canonical option -> its key in obj_
    std::vector<std::string> engines_;          // the ioengine values of the job (psync if none)
    std::string other_engine_;                  // one of them blksim does not have, if any
    std::map<std::string, size_t> last_;        // canonical option -> index of its last value
};


// $ncpus is the simulated host's: host.cpus, else its cost profile's (a profile that cannot be
// read gives 1 here; the decoder reports it).
uint64_t host_cpus_for_fio(const json& doc, const LoadContext& ctx) {
    if (!doc.contains("host") || !doc["host"].is_object()) return 1;
    const json& host = doc["host"];
    if (host.contains("cpus") && host["cpus"].is_number_unsigned()) return host["cpus"].get<uint64_t>();
    if (!host.contains("cost_profile") || !host["cost_profile"].is_string()) return 1;
    const fs::path path = profile_path(ctx, host["cost_profile"].get<std::string>(), "cpu");
    std::string why;
    const std::optional<std::string> text = input::read_file(path.string(), input::kMaxTextFile, why);
    if (!text || input::json_nesting_exceeded(*text)) return 1;
    const json profile = json::parse(*text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
    if (profile.is_object() && profile.contains("cpus") && profile["cpus"].is_number_unsigned())
        return profile["cpus"].get<uint64_t>();
    return 1;
}

// The fio input parsed: the command line, or the job file the scenario's "fio" names. The
// doc loses the sections the fio input replaces.
fio::Input read_fio_input(json& doc, const Reporter& rep, const LoadContext& ctx, const FioInput& fio,
                          const fio::Environment& env) {
    try {
        if (fio.args) {
            doc.erase("global");  // the scenario's machine, the command line's jobs
            doc.erase("jobs");
            doc.erase("fio");
            return fio::parse_command_line(*fio.args, env);
        }
        if (doc.contains("global") || doc.contains("jobs"))
            rep.fail("/fio", "a scenario takes its jobs either from a fio job file (\"fio\") or from \"global\" and "
                             "\"jobs\", not both");
        if (!doc["fio"].is_string() || doc["fio"].get<std::string>().empty())
            rep.fail("/fio", "expected the path of a fio job file (relative to the scenario), got " + brief(doc["fio"]));
        fs::path p(doc["fio"].get<std::string>());
        if (p.is_relative()) p = ctx.scenario_dir / p;
        const std::string what = p.lexically_normal().string();
        if (const std::string why = input::not_a_regular_file(what); !why.empty())
            rep.fail("/fio", "cannot read the fio job file " + squote(what) + ": " + why);
        doc.erase("fio");
        return fio::parse_job_file(what, env);
    } catch (const fio::ParseError& e) {
        throw ScenarioError(e.what());
    }
}

// fio's --output-format becomes the scenario's output format.
void apply_output_format(json& doc, Reporter& rep, const fio::Settings& settings) {
    const auto& f = settings.output_format;
    if (!f) return;
    if (!doc.contains("output") || !doc["output"].is_object()) doc["output"] = json::object();
    doc["output"]["format"] = f->value.value_or("");
    rep.note_origin("/output/format", f->describe());
}

}  // namespace

// blksim fio --scheduler: every device's queue gets that scheduler (and loses the tunables
// of another one).
void apply_scheduler(json& doc, Reporter& rep, const std::string& scheduler) {
    if (scheduler.empty() || !doc.contains("devices") || !doc["devices"].is_array()) return;
    if (!doc.contains("queues") || !doc["queues"].is_array()) doc["queues"] = json::array();
    json& queues = doc["queues"];
    for (const json& d : doc["devices"]) {
        if (!d.is_object() || !d.contains("name") || !d["name"].is_string()) continue;
        size_t i = 0;
        while (i < queues.size() && !(queues[i].is_object() && queues[i].value("device", json()) == d["name"])) ++i;
        if (i == queues.size()) queues.push_back(json{{"device", d["name"]}});
        json& q = queues[i];
        if (q.value("scheduler", json("none")) != scheduler) q.erase("iosched");  // the old scheduler's tunables
        q["scheduler"] = scheduler;
        rep.note_origin(child(child("/queues", i), "scheduler"), "--scheduler " + scheduler);
    }
}

void expand_fio(json& doc, Reporter& rep, const LoadContext& ctx, FioInput& fio) {
    if (!doc.is_object()) return;  // the schema reports it
    const auto note = [&](const std::string& msg) {
        if (fio.policy.warnings) fio.policy.warnings->push_back(msg);
    };
    fio::Environment env;
    env.ncpus = host_cpus_for_fio(doc, ctx);
    env.getenv = fio.policy.getenv;
    const fio::Input in = read_fio_input(doc, rep, ctx, fio, env);
    const std::string& what = in.source;
    fio.settings = in.settings;

    Unsupported unsupported;
    for (const fio::Option& o : in.settings.unsupported) unsupported.add(o, "an option of the fio program, not of a job", true);
    apply_output_format(doc, rep, in.settings);
    apply_scheduler(doc, rep, fio.scheduler);

    std::vector<std::string> notes;
    json jobs = json::array();
    FioJobConverter converter(rep, unsupported, fio.scheduler, notes);
    for (size_t i = 0; i < in.jobs.size(); ++i) jobs.push_back(converter.convert(in.jobs[i], child("/jobs", i)));
    doc["jobs"] = std::move(jobs);

    if (in.implicit_job)
        note(what + ": no --name and no job file: the options run as one job named 'job' (fio itself would stop "
                    "with \"No job(s) defined\")");
    for (const std::string& n : notes) note(n);
    if (unsupported.empty()) return;
    if (unsupported.fatal() || fio.policy.strict)
        throw ScenarioError(what + ": fio options blksim does not support: " + unsupported.list() +
                            (unsupported.fatal() ? "" : " (refused by --strict, ignored without it)"));
    note(what + ": blksim does not support these fio options and runs without them: " + unsupported.list() +
         " (--strict refuses them)");
}

}  // namespace blksim::scenario
