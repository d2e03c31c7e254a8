#include "tools/scenario/scenario.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>
// GCC 12 at -O2/-O3 reports a false -Wrestrict inside valijson's string handling
// (json_pointer.hpp, validation_visitor.hpp); keep it from failing -Werror builds.
#pragma GCC diagnostic push
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>
#pragma GCC diagnostic pop

#include "models/device/hdd_mechanics.h"
#include "tools/disksim/import.h"
#include "tools/disksim/param_file.h"
#include "tools/input/input_file.h"
#include "tools/input/nesting.h"
#include "models/device/raid_controller.h"
#include "models/report/fio_output.h"
#include "models/sched/bfq_config.h"
#include "models/sched/kyber.h"
#include "models/sched/mq_deadline.h"
#include "tools/replay/trace_reader.h"
#include "models/topology/topology.h"
#include "tools/scenario/decode.h"
#include "models/sched/scheduler_kinds.h"
#include "tools/scenario/device_params.h"
#include "tools/scenario/fio_job.h"
#include "tools/scenario/json_util.h"
#include "tools/scenario/schema_check.h"
#include "tools/scenario/units.h"

namespace blksim::scenario {

namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------
// The names a scenario may use, one table per kind. scenarios/schema.json lists the same
// names in its enums (test_scenario.cc checks that the two agree).

struct EngineName {
    std::string_view name;
    workload::IoEngine engine;
};
constexpr EngineName kEngines[] = {
    {"psync", workload::IoEngine::PSYNC},  {"pvsync", workload::IoEngine::PSYNC},
    {"sync", workload::IoEngine::PSYNC},   {"libaio", workload::IoEngine::LIBAIO},
    {"io_uring", workload::IoEngine::IO_URING},
};

struct RwName {
    std::string_view name;
    workload::RwPattern rw;
};
constexpr RwName kRwPatterns[] = {
    {"read", workload::RwPattern::READ},           {"write", workload::RwPattern::WRITE},
    {"randread", workload::RwPattern::RANDREAD},   {"randwrite", workload::RwPattern::RANDWRITE},
    {"rw", workload::RwPattern::RW},               {"readwrite", workload::RwPattern::RW},
    {"randrw", workload::RwPattern::RANDRW},
};

// The fio options a job (or global) may carry. `canonical` names the option an alias
// stands for; `integer` options also accept a string of digits, as in a fio job file.
struct FioOption {
    std::string_view name;
    std::string_view canonical;
    bool integer = false;
};
constexpr FioOption kFioOptions[] = {
    {"name", "name"},
    {"device", "device"},
    {"filename", "filename"},
    {"ioengine", "ioengine"},
    {"rw", "rw"},
    {"readwrite", "rw"},
    {"rwmixread", "rwmixread", true},
    {"rwmixwrite", "rwmixread", true},  // stored as rwmixread = 100 - value, as fio does
    {"bs", "bs"},
    {"blocksize", "bs"},
    {"bsrange", "bsrange"},
    {"blocksize_range", "bsrange"},
    {"bssplit", "bssplit"},
    {"bs_unaligned", "bs_unaligned"},
    {"blocksize_unaligned", "bs_unaligned"},
    {"blockalign", "blockalign"},
    {"ba", "blockalign"},
    {"size", "size"},
    {"offset", "offset"},
    {"numjobs", "numjobs", true},
    {"iodepth", "iodepth", true},
    {"iodepth_batch_submit", "iodepth_batch_submit", true},
    {"iodepth_batch", "iodepth_batch_submit", true},
    {"iodepth_batch_complete_min", "iodepth_batch_complete_min", true},
    {"iodepth_batch_complete", "iodepth_batch_complete_min", true},
    {"iodepth_batch_complete_max", "iodepth_batch_complete_max", true},
    {"runtime", "runtime"},
    {"time_based", "time_based"},
    {"ramp_time", "ramp_time"},
    {"number_ios", "number_ios", true},
    {"randseed", "randseed", true},
    {"direct", "direct"},
    {"fsync", "fsync", true},
    {"fdatasync", "fdatasync", true},
    {"sync", "sync"},
    {"end_fsync", "end_fsync"},
    {"fsync_on_close", "fsync_on_close"},
    {"cpus_allowed", "cpus_allowed"},
    {"thread", "thread"},
    {"group_reporting", "group_reporting"},
    {"new_group", "new_group"},
    {"stonewall", "stonewall"},
    {"wait_for_previous", "stonewall"},
    {"ioscheduler", "ioscheduler"},
    {"kb_base", "kb_base"},
    {"prioclass", "prioclass", true},
    {"prio", "prio", true},
    {"cmdprio_percentage", "cmdprio_percentage", true},
    {"cmdprio_class", "cmdprio_class", true},
    {"cmdprio", "cmdprio", true},
    {"cmdprio_bssplit", "cmdprio_bssplit"},
    {"rate", "rate", true},
    {"rate_iops", "rate_iops", true},
    {"rate_min", "rate_min", true},
    {"ratemin", "rate_min", true},
    {"rate_iops_min", "rate_iops_min", true},
    {"rate_process", "rate_process"},
    {"rate_cycle", "rate_cycle", true},
    {"ratecycle", "rate_cycle", true},
    {"rate_ignore_thinktime", "rate_ignore_thinktime"},
    {"thinktime", "thinktime"},
    {"thinktime_spin", "thinktime_spin"},
    {"thinktime_blocks", "thinktime_blocks", true},
    {"thinktime_blocks_type", "thinktime_blocks_type"},
    {"thinktime_iotime", "thinktime_iotime"},
    {"read_iolog", "read_iolog"},
    {"replay_no_stall", "replay_no_stall"},
    {"write_lat_log", "write_lat_log"},
    {"write_bw_log", "write_bw_log"},
    {"write_iops_log", "write_iops_log"},
    {"log_avg_msec", "log_avg_msec", true},
    {"log_offset", "log_offset"},
    {"log_prio", "log_prio"},
};

const FioOption* find_fio_option(std::string_view name) {
    for (const FioOption& o : kFioOptions)
        if (o.name == name) return &o;
    return nullptr;
}

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
    "exitall", "exitall_on_error", "exit_what", "exec_prerun", "exec_postrun", "lockmem", "mem",
    "hugepage-size", "clocksource", "gtod_reduce", "gtod_cpu",
    // data content and random-offset bookkeeping
    "zero_buffers", "refill_buffers", "scramble_buffers", "buffer_pattern", "buffer_compress_percentage",
    "buffer_compress_chunk", "dedupe_percentage", "dedupe_mode", "dedupe_working_set_percentage",
    "dedupe_global", "randrepeat", "allrandrepeat", "norandommap", "random_generator",
    // errors (a simulation has none) and what fio reports anyway
    "continue_on_error", "ignore_error", "error_dump", "disable_lat", "disable_clat", "disable_slat",
    "disable_bw_measurement", "clat_percentiles", "lat_percentiles", "slat_percentiles",
    "significant_figures", "disk_util",
    // settings of verify, which is listed itself unless off
    "do_verify", "verify_interval", "verify_offset", "verify_pattern", "verify_fatal", "verify_dump",
    "verify_async", "verify_backlog", "verify_backlog_batch", "verify_state_save",
    "verify_state_load", "experimental_verify",
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
    {"verify", "0|null"},          {"loops", "1"},        {"startdelay", "0"},
    {"nrfiles", "1"},              {"zonemode", "none"},      {"cpus_allowed_policy", "shared"},
    {"unified_rw_reporting", "0|none"}, {"random_distribution", "random"}, {"stats", "1"}, {"offset_increment", "0"},
    {"buffered", "0"},             {"io_submit_mode", "inline"}, {"hipri", "0"},     {"sqthread_poll", "0"},
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

// Limits that are checked by the decoder (the schema cannot express them, or only for
// JSON numbers and not for strings such as "4k").
constexpr uint64_t kMinBs = 512;
constexpr uint64_t kMaxBs = 128ULL << 20;
constexpr uint64_t kMaxThreads = 4096;  // sum of numjobs over all jobs
constexpr sim::Duration kMaxRuntime = sim::Duration::ns(365LL * 86400 * 1'000'000'000);


// fio job files carry every value as a string ("iodepth=32"); accept "32" for integer
// options by turning it into a number before validation, so that the schema's ranges
// apply to it too.
// fio's integer syntax without suffix: decimal digits or 0x-hex (the schema's pattern).
bool is_fio_integer(const std::string& t) {
    const auto all = [](auto first, auto last, int (*pred)(int)) {
        return first != last && std::all_of(first, last, [&](char c) { return pred(static_cast<unsigned char>(c)) != 0; });
    };
    if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) return all(t.begin() + 2, t.end(), std::isxdigit);
    return all(t.begin(), t.end(), std::isdigit);
}

void integers_from_strings(json& options, const std::string& ptr, const Reporter& rep) {
    if (!options.is_object()) return;
    for (auto& [key, value] : options.items()) {
        const FioOption* opt = find_fio_option(key);
        if (!opt || !opt->integer || !value.is_string()) continue;
        const std::string text = value.get<std::string>();
        if (!is_fio_integer(text)) continue;  // left for the schema to report
        try {
            value = units::parse_uint(text);
        } catch (const units::ValueError& e) {
            rep.fail(child(ptr, key), e.what());  // too large for 64 bits
        }
    }
}

void normalize_fio_sections(json& doc, const Reporter& rep) {
    if (!doc.is_object()) return;
    if (doc.contains("global")) integers_from_strings(doc["global"], "/global", rep);
    if (doc.contains("jobs") && doc["jobs"].is_array())
        for (size_t i = 0; i < doc["jobs"].size(); ++i)
            integers_from_strings(doc["jobs"][i], child("/jobs", i), rep);
}

// ---------------------------------------------------------------------------------------
// fio input: the jobs of a fio job file or command line (fio_job.h) become the scenario's
// "jobs" array, each value remembered with the place it was written, so that the schema and
// the decoder check them exactly as they check a JSON scenario's and name that place.

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
            if (!in_table(kEngines, *o.value)) other_engine_ = *o.value;
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
    void option(const fio::Option& o, bool effective) {
        const fio::OptionInfo* info = fio::find_option(o.name);
        const FioOption* model = find_fio_option(o.name);
        if (!model && info) model = find_fio_option(info->canonical);
        if (!info && !model) {
            // An engine blksim does not have may have options fio's vocabulary lacks (the
            // vocabulary holds only the engines built into Debian's fio): count them as its.
            if (!other_engine_.empty()) {
                if (effective) unsupported_.add(o, "an option of ioengine=" + other_engine_ + "?", false);
                return;
            }
            const std::string guess = fio::closest_option(o.name);
            fail(o, "unknown fio option " + squote(o.name) + (guess.empty() ? "" : " (did you mean " + guess + "?)"));
        }
        if (info && info->needs_value && !o.value) fail(o, "option " + squote(o.name) + " needs a value (" + o.name + "=...)");
        if (info && !info->engines.empty() && other_engine_.empty() && !has_engine_option(*info)) {
            std::string engines(info->engines);
            std::replace(engines.begin(), engines.end(), ',', ' ');
            fail(o, squote(o.name) + " is an option of the ioengines " + engines + ", not of ioengine=" + engines_.back() +
                        " (fio refuses it: \"Bad option\")");
        }
        if (!effective) return;  // a later value replaces it, as in fio
        const std::string value = o.value.value_or("1");  // a bare flag means 1
        const std::string canon = model ? std::string(model->canonical) : canonical(o);

        if (model) {
            if (canon == "name") {
                obj_["name"] = value;
                rep_.note_origin(child(ptr_, "name"), o.describe());
                return;
            }
            if ((canon == "ioengine" || canon == "rw" || canon == "ioscheduler") && value.empty())
                fail(o, "empty value" + std::string(o.raw.find("${") != std::string::npos
                                                        ? " (an environment variable that is not set gives '', as in fio)"
                                                        : ""));
            if (canon == "ioengine" && !in_table(kEngines, value))
                return unsupported_.add(o, "blksim's engines: " + table_names(kEngines), true);
            if (canon == "ioscheduler") {
                if (!scheduler_override_.empty()) {
                    notes_.push_back(o.describe() + ": replaced by --scheduler " + scheduler_override_);
                    return;
                }
                if (sched::find_scheduler_kind(value) == nullptr)
                    return unsupported_.add(o, "blksim's schedulers: " + join(supported_schedulers()), true);
            }
            if (canon == "rw") {
                const size_t colon = value.find(':');
                const std::string pattern = value.substr(0, colon);
                if (!in_table(kRwPatterns, pattern))
                    return unsupported_.add(o, "blksim's patterns: " + table_names(kRwPatterns), true);
                if (colon != std::string::npos) {
                    unsupported_.add(o, "the :" + value.substr(colon + 1) + " offset modifier, runs as rw=" + pattern, false);
                    return set(o, model->name, canon, pattern);
                }
            }
            // write_lat_log without a name: fio names the files after the job ("" here).
            if ((canon == "write_lat_log" || canon == "write_bw_log" || canon == "write_iops_log") && !o.value)
                return set(o, model->name, canon, std::string());
            if (canon == "direct" && (value == "0" || value == "false"))
                return unsupported_.add(o, "buffered I/O: the page cache is not modelled, runs as direct I/O", false);
            return set(o, model->name, canon, value);
        }
        if (canon == "buffered" && value != "0")
            return unsupported_.add(o, "buffered I/O: the page cache is not modelled, runs as direct I/O", false);
        if (canon == "zonemode" && value != "none")  // the job needs a kind of device blksim has not
            return unsupported_.add(o, "zoned block devices are not modelled", true);
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


// ---------------------------------------------------------------------------------------
// Decoding: validated JSON -> typed configs. The schema has checked types, enums and the
// ranges of JSON numbers; what is left here is fio's value syntax, defaults, references
// between sections and checks that involve more than one value.

// One fio option value and where it was written (the job's or global's entry).
struct Opt {
    const json* value;
    std::string ptr;
    std::string_view given_name;  // as written, e.g. "iodepth_batch" for iodepth_batch_submit
};
using Options = std::map<std::string, Opt, std::less<>>;

class JobDecoder {
public:
    explicit JobDecoder(DecodeState& st) : st_(st), doc_(st.doc), rep_(st.rep), ctx_(st.ctx), schema_(st.schema) {}

    std::vector<workload::JobConfig> decode_jobs(OutputConfig& output) {
        return decode_jobs_impl(output);
    }

private:
    // fio read_iolog=: a blktrace binary (a file, or the base name of per-CPU files) or a fio
    // iolog v2/v3, read by tools/replay. A relative path is looked up beside the scenario
    // first, then from the working directory. The job then describes itself as fio does after
    // reading the log: rw from the directions it holds, bs the largest I/O of each direction.
    void decode_replay(const Opt& v, workload::JobConfig& j, const dev::DeviceConfig& d) const {
        const std::string given = text(v);
        std::string path = given;
        if (const fs::path p(given); p.is_relative()) {
            const fs::path beside = ctx_.scenario_dir / p;
            if (!replay::replay_files(beside.string()).empty()) path = beside.string();
        }
        std::shared_ptr<workload::ReplayLog> log;
        try {
            log = std::make_shared<workload::ReplayLog>(replay::load_replay_log(path));
        } catch (const replay::TraceError& e) {
            rep_.fail(v.ptr, e.what());
        }
        const uint64_t capacity = capacity_bytes(d);
        const uint64_t lbs = logical_block_size(d);
        bool dirs[2] = {false, false};
        uint64_t max_bs[2] = {0, 0};
        for (std::size_t i = 0; i < log->entries.size(); ++i) {
            const workload::ReplayEntry& e = log->entries[i];
            if (e.offset > capacity || e.bytes > capacity - e.offset)
                rep_.fail(v.ptr, fmt_replay_entry(*log, i) + " ends beyond " + d.name + " (" + std::to_string(capacity) + " bytes)");
            if (j.direct && (e.offset % lbs != 0 || e.bytes % lbs != 0))
                rep_.fail(v.ptr, fmt_replay_entry(*log, i) + " is not aligned to " + d.name + "'s logical block size " +
                                     std::to_string(lbs) + " (direct I/O needs that)");
            dirs[e.ddir] = true;
            max_bs[e.ddir] = std::max<uint64_t>(max_bs[e.ddir], e.bytes);
        }
        j.rw = dirs[0] && dirs[1] ? workload::RwPattern::RW : dirs[1] ? workload::RwPattern::WRITE : workload::RwPattern::READ;
        if (max_bs[0]) j.bs_read = max_bs[0];
        if (max_bs[1]) j.bs_write = max_bs[1];
        j.replay = std::move(log);
    }

    static std::string fmt_replay_entry(const workload::ReplayLog& log, std::size_t i) {
        const workload::ReplayEntry& e = log.entries[i];
        return log.source + ": I/O " + std::to_string(i + 1) + " of the " + log.format + " (" +
               (e.ddir ? "write" : "read") + " of " + std::to_string(e.bytes) + " bytes at byte offset " +
               std::to_string(e.offset) + ")";
    }

    // fio's log files (models/workload/io_log.h). An empty name is the job's, as fio's bare
    // write_lat_log.
    void decode_logs(const Options& o, workload::JobConfig& j) const {
        auto name = [&](const char* option, std::string& out) {
            if (const Opt* v = get(o, option)) out = text(*v).empty() ? j.name : text(*v);
        };
        name("write_lat_log", j.logs.lat);
        name("write_bw_log", j.logs.bw);
        name("write_iops_log", j.logs.iops);
        if (const Opt* v = get(o, "log_avg_msec")) j.logs.avg_msec = static_cast<uint32_t>(v->value->get<uint64_t>());
        if (const Opt* v = get(o, "log_offset")) j.logs.offset = boolean(*v);
        if (const Opt* v = get(o, "log_prio")) j.logs.prio = boolean(*v);
    }

    // fio's priority options. The cmdprio_* ones belong to the libaio and io_uring engines
    // and take a value per direction ("10,20"); cmdprio_bssplit's 2-field entries take
    // cmdprio_class/cmdprio (default RT, 0) of their direction.
    void decode_prio(const Options& o, units::KbBase kb_base, workload::JobConfig& j) const {
        auto u8 = [&](const char* name, uint8_t& out) {
            if (const Opt* v = get(o, name)) out = static_cast<uint8_t>(v->value->get<uint64_t>());
        };
        u8("prioclass", j.prioclass);
        u8("prio", j.prio);
        const auto per_ddir = [&](const char* name, uint64_t lo, uint64_t hi, const std::string& allowed,
                                  auto set) -> const Opt* {
            const Opt* v = get(o, name);
            if (!v) return nullptr;
            const units::DdirSizes x = parse_at(*v, [](const std::string& t) { return units::parse_ddir_uints(t); });
            const std::optional<uint64_t>* slots[2] = {&x.read, &x.write};
            for (unsigned dir = 0; dir < 2; ++dir) {
                if (!*slots[dir]) continue;
                if (**slots[dir] < lo || **slots[dir] > hi)
                    rep_.fail(v->ptr, std::to_string(**slots[dir]) + " is out of range (allowed: " + allowed + ")");
                set(j.cmdprio[dir], **slots[dir]);
            }
            return v;
        };
        const Opt* pct = per_ddir("cmdprio_percentage", 0, 100, "0..100",
                                  [](auto& c, uint64_t x) { c.percentage = static_cast<uint32_t>(x); });
        per_ddir("cmdprio_class", 1, 3, "1 RT, 2 BE, 3 IDLE",
                 [](auto& c, uint64_t x) { c.ioprio_class = static_cast<uint8_t>(x); });
        per_ddir("cmdprio", 0, 7, "0..7", [](auto& c, uint64_t x) { c.level = static_cast<uint8_t>(x); });
        const Opt* split = get(o, "cmdprio_bssplit");
        if (split) {
            const units::DdirCmdprioSplit sp =
                parse_at(*split, [&](const std::string& t) { return units::parse_cmdprio_bssplit(t, kb_base); });
            const std::vector<units::CmdprioSplitEntry>* lists[2] = {&sp.read, &sp.write};
            for (unsigned dir = 0; dir < 2; ++dir) {
                workload::JobConfig::Cmdprio& c = j.cmdprio[dir];
                uint32_t total = 0;
                for (size_t i = 0; i < lists[dir]->size(); ++i) {
                    const units::CmdprioSplitEntry& e = (*lists[dir])[i];
                    total = i > 0 && (*lists[dir])[i - 1].bs == e.bs ? total + e.percent : e.percent;
                    if (total > 100)
                        rep_.fail(split->ptr, "the percentages for block size " + std::to_string(e.bs) + " (" +
                                                  (dir ? "writes" : "reads") + ") add up to " + std::to_string(total) +
                                                  "% (at most 100%; fio refuses it too)");
                    c.bssplit.push_back({e.bs, e.percent,
                                         static_cast<uint8_t>(e.has_prio ? e.ioprio_class : c.ioprio_class),
                                         static_cast<uint8_t>(e.has_prio ? e.level : c.level)});
                }
            }
        }
        const bool any_pct = j.cmdprio[0].percentage != 0 || j.cmdprio[1].percentage != 0;
        const bool any_split = !j.cmdprio[0].bssplit.empty() || !j.cmdprio[1].bssplit.empty();
        if (any_pct && any_split)
            rep_.fail(split->ptr, "cmdprio_percentage and cmdprio_bssplit are mutually exclusive (" +
                                      rep_.describe(pct->ptr) + "; fio refuses them together)");
        if ((any_pct || any_split) && j.ioengine == workload::IoEngine::PSYNC) {
            const Opt* v = any_pct ? pct : split;
            rep_.fail(v->ptr, std::string(v->given_name) +
                                  " is an option of the libaio and io_uring engines (this job uses psync)");
        }
    }

    // --- jobs ---

    // A section's options by canonical name; an option and its alias in the same section
    // would leave the value to JSON key order, so that is refused.
    Options collect_options(const json& obj, const std::string& ptr) const {
        Options opts;
        for (const auto& [key, value] : obj.items()) {
            const FioOption* o = find_fio_option(key);
            const std::string canonical(o ? o->canonical : std::string_view(key));
            if (auto it = opts.find(canonical); it != opts.end())
                rep_.fail(child(ptr, key), "give either " + squote(it->second.given_name) + " or " + squote(key) +
                                               ", not both (they set the same fio option)");
            opts.emplace(canonical, Opt{&value, child(ptr, key), o ? o->name : std::string_view()});
        }
        return opts;
    }

    std::vector<workload::JobConfig> decode_jobs_impl(OutputConfig& output) {
        Options global;
        if (doc_.contains("global")) {
            global = collect_options(doc_["global"], "/global");
            if (global.count("name"))
                rep_.fail("/global/name", "name belongs on each job, not in global");
        }
        std::vector<workload::JobConfig> jobs;
        GroupState groups;
        uint64_t threads = 0;
        const json& list = doc_.at("jobs");
        for (size_t i = 0; i < list.size(); ++i) {
            const std::string at = child("/jobs", i);
            Options opts = global;
            for (auto& [name, opt] : collect_options(list[i], at)) opts.insert_or_assign(name, opt);
            jobs.push_back(decode_job(opts, at, groups, output));
            threads += jobs.back().numjobs;
            if (threads > kMaxThreads)
                rep_.fail(child(at, "numjobs"), "the jobs add up to " + std::to_string(threads) +
                                                    " threads (sum of numjobs); at most " + std::to_string(kMaxThreads) + " are supported");
        }
        return jobs;
    }

    // fio's add_job(): stonewall/new_group starts a new group, unless no job came before.
    struct GroupState {
        uint32_t groupid = 0;
        uint64_t jobs_in_group = 0;
    };

    workload::JobConfig decode_job(const Options& o, const std::string& ptr, GroupState& groups, OutputConfig& output) {
        workload::JobConfig j;
        j.name = o.at("name").value->get<std::string>();
        const size_t dev = job_device(o, ptr);
        j.device = devices_[dev].name;

        const units::KbBase kb_base = get(o, "kb_base") && text(*get(o, "kb_base")) == "1000"
                                          ? units::KbBase::B1000 : units::KbBase::B1024;
        if (const Opt* v = get(o, "ioengine")) j.ioengine = lookup(kEngines, text(*v)).engine;
        if (const Opt* v = get(o, "rw")) j.rw = lookup(kRwPatterns, text(*v)).rw;
        if (const Opt* v = get(o, "rwmixread")) {
            const uint32_t pct = static_cast<uint32_t>(v->value->get<uint64_t>());
            j.rwmixread = v->given_name == "rwmixwrite" ? 100 - pct : pct;
        }
        if (const Opt* v = get(o, "direct")) j.direct = boolean(*v);
        if (const Opt* v = get(o, "fsync")) j.fsync_blocks = static_cast<uint32_t>(v->value->get<uint64_t>());
        if (const Opt* v = get(o, "fdatasync")) j.fdatasync_blocks = static_cast<uint32_t>(v->value->get<uint64_t>());
        if (const Opt* v = get(o, "sync")) {
            // fio's sync=: none/0, sync/1 (O_SYNC), dsync (O_DSYNC); both make direct writes FUA.
            const std::string t = v->value->is_boolean() ? (v->value->get<bool>() ? "1" : "0") : text(*v);
            j.sync_writes = t == "1" || t == "sync" || t == "dsync";
        }
        for (const char* name : {"end_fsync", "fsync_on_close"})
            if (const Opt* v = get(o, name); v && boolean(*v))
                j.end_fsync = true;

        decode_block_sizes(o, kb_base, j, devices_[dev]);
        decode_depths(o, j);
        decode_region(o, kb_base, j, devices_[dev]);
        decode_times(o, j);
        decode_thinktime(o, j);

        if (const Opt* v = get(o, "number_ios")) j.number_ios = v->value->get<uint64_t>();
        if (const Opt* v = get(o, "randseed")) j.randseed = v->value->get<uint64_t>();
        if (const Opt* v = get(o, "cpus_allowed")) j.cpus_allowed = decode_cpus(*v);
        if (const Opt* v = get(o, "group_reporting"); v && boolean(*v)) output.group_reporting = true;
        if (const Opt* v = get(o, "ioscheduler")) set_job_scheduler(st_, dev, text(*v), v->ptr);
        decode_prio(o, kb_base, j);
        if (const Opt* v = get(o, "read_iolog")) decode_replay(*v, j, devices_[dev]);
        decode_rate(o, kb_base, j);
        if (const Opt* v = get(o, "replay_no_stall")) j.replay_no_stall = boolean(*v);
        decode_logs(o, j);
        // "thread" and "filename" are accepted for fio compatibility and have no effect.

        const bool stonewall = get(o, "stonewall") && boolean(*get(o, "stonewall"));
        const bool new_group = get(o, "new_group") && boolean(*get(o, "new_group"));
        if ((stonewall || new_group) && groups.jobs_in_group > 0) {
            ++groups.groupid;
            groups.jobs_in_group = 0;
        }
        j.groupid = groups.groupid;
        j.stonewall = stonewall;
        groups.jobs_in_group += j.numjobs;
        return j;
    }

    size_t job_device(const Options& o, const std::string& ptr) const {
        if (const Opt* v = get(o, "device")) return st_.device_index(text(*v), v->ptr);
        if (devices_.size() == 1) return 0;
        // A fio job names its device by file: filename=/dev/nvme0n1.
        if (const Opt* v = get(o, "filename")) {
            std::string f = text(*v);
            if (f.starts_with("/dev/")) f.erase(0, 5);
            if (const auto it = device_by_name_.find(f); it != device_by_name_.end()) return it->second;
        }
        std::vector<std::string> names;
        for (const auto& d : devices_) names.push_back(d.name);
        rep_.fail(ptr, "no device given and the scenario has " + std::to_string(devices_.size()) +
                           " devices; add \"device\": one of " + join(names) + " (in a fio job: filename=/dev/NAME)");
    }

    // fio's bs, bsrange, bssplit (per direction), blocksize_unaligned, blockalign. Every size
    // is checked as bs is; bsrange and bssplit set the smallest size (bs_read/bs_write, fio's
    // min_bs) and the range of sizes, and win over bs, as in fio.
    void decode_block_sizes(const Options& o, units::KbBase kb_base, workload::JobConfig& j,
                            const dev::DeviceConfig& d) const {
        const uint64_t lbs = logical_block_size(d);
        const auto check = [&](const Opt& v, uint64_t bs, std::string what) {
            if (bs < kMinBs || bs > kMaxBs) rep_.fail(v.ptr, what + " is out of range (allowed: 512 bytes .. 128 MiB)");
            if (bs % kMinBs != 0) rep_.fail(v.ptr, what + " is not a multiple of 512" + kib_note(v, kb_base));
            if (j.direct && bs % lbs != 0)
                rep_.fail(v.ptr, what + " is not a multiple of " + d.name + "'s logical block size " +
                                     std::to_string(lbs) + " (direct I/O needs that)");
        };
        static constexpr std::string_view kDir[2] = {"read", "write"};
        if (const Opt* v = get(o, "bs")) {
            const units::DdirSizes sizes = parse_at(*v, [&](const std::string& t) { return units::parse_ddir_sizes(t, kb_base); });
            const auto one = [&](const std::optional<uint64_t>& size, uint64_t& out, unsigned dir) {
                if (!size) return;
                out = *size;
                check(*v, out, "block size " + std::to_string(out) + (sizes.read == sizes.write ? "" : " (" + std::string(kDir[dir]) + ")"));
            };
            one(sizes.read, j.bs_read, 0);
            one(sizes.write, j.bs_write, 1);
            // sizes.trim: blksim has no trim workload; fio's third value is accepted and unused.
        }
        const Opt* range = get(o, "bsrange");
        const Opt* split = get(o, "bssplit");
        if (range && split)
            rep_.fail(split->ptr, "give either bsrange or bssplit, not both (" + rep_.describe(range->ptr) +
                                      " sets the range too)");
        uint64_t* min_bs[2] = {&j.bs_read, &j.bs_write};
        if (range) {
            const units::DdirRanges r = parse_at(*range, [&](const std::string& t) { return units::parse_ddir_ranges(t, kb_base); });
            const std::optional<units::SizeRange>* slots[2] = {&r.read, &r.write};
            for (unsigned dir = 0; dir < 2; ++dir) {
                if (!*slots[dir]) continue;
                const units::SizeRange x = **slots[dir];
                check(*range, x.min, "block size " + std::to_string(x.min) + " (" + std::string(kDir[dir]) + ")");
                check(*range, x.max, "block size " + std::to_string(x.max) + " (" + std::string(kDir[dir]) + ")");
                *min_bs[dir] = x.min;
                j.bs_range[dir].max = x.max != x.min ? x.max : 0;
            }
        }
        if (split) {
            const units::DdirBsSplit sp = parse_at(*split, [&](const std::string& t) { return units::parse_bssplit(t, kb_base); });
            const std::optional<units::BsSplit>* slots[2] = {&sp.read, &sp.write};
            for (unsigned dir = 0; dir < 2; ++dir) {
                if (!*slots[dir]) continue;
                uint64_t lo = units::kMaxSize, hi = 0;
                for (const units::BsSplitEntry& e : **slots[dir]) {
                    check(*split, e.bs, "block size " + std::to_string(e.bs) + " (" + std::string(kDir[dir]) + ")");
                    lo = std::min(lo, e.bs);
                    hi = std::max(hi, e.bs);
                    j.bs_range[dir].split.push_back({e.bs, e.percent});
                }
                *min_bs[dir] = lo;
                j.bs_range[dir].max = hi != lo ? hi : 0;
                if (hi == lo) j.bs_range[dir].split.clear();  // one size: plain bs
            }
        }
        if (const Opt* v = get(o, "bs_unaligned")) j.bs_unaligned = boolean(*v);
        if (const Opt* v = get(o, "blockalign")) {
            const units::DdirSizes a = parse_at(*v, [&](const std::string& t) { return units::parse_ddir_sizes(t, kb_base); });
            const std::optional<uint64_t>* slots[2] = {&a.read, &a.write};
            for (unsigned dir = 0; dir < 2; ++dir) {
                if (!*slots[dir]) continue;
                check(*v, **slots[dir], "blockalign " + std::to_string(**slots[dir]) + " (" + std::string(kDir[dir]) + ")");
                j.blockalign[dir] = **slots[dir];
            }
        }
    }

    // fio's rate options (models/workload/rate.h). Checked as fio's fixup_options() and
    // setup_rate() check them, after the block sizes (rate_iops counts in the smallest one).
    void decode_rate(const Options& o, units::KbBase kb_base, workload::JobConfig& j) const {
        workload::JobConfig::Rate& r = j.rate;
        const auto per_ddir = [&](const char* name, uint64_t (&out)[2]) -> const Opt* {
            const Opt* v = get(o, name);
            if (!v) return nullptr;
            const units::DdirSizes x = parse_at(*v, [&](const std::string& t) { return units::parse_ddir_rates(t, kb_base); });
            if (x.read) out[0] = *x.read;
            if (x.write) out[1] = *x.write;
            return v;
        };
        uint64_t bytes[2] = {0, 0}, iops[2] = {0, 0};
        const Opt* rate = per_ddir("rate", bytes);
        const Opt* rate_iops = per_ddir("rate_iops", iops);
        const Opt* rate_min = per_ddir("rate_min", r.min_bps);
        const Opt* rate_iops_min = per_ddir("rate_iops_min", r.min_iops);
        if (const Opt* v = get(o, "rate_process")) r.poisson = text(*v) == "poisson";
        if (const Opt* v = get(o, "rate_cycle")) {
            const uint64_t ms = v->value->get<uint64_t>();
            if (ms > static_cast<uint64_t>(kMaxRuntime.count() / 1'000'000)) rep_.fail(v->ptr, "rate_cycle is longer than a year");
            r.cycle = sim::Duration::ns(static_cast<int64_t>(ms) * 1'000'000);
        }
        if (const Opt* v = get(o, "rate_ignore_thinktime")) r.ignore_thinktime = boolean(*v);
        for (unsigned dir = 0; dir < 2; ++dir) {
            const std::string which = dir ? " (writes)" : " (reads)";
            r.iops[dir] = iops[dir];
            r.by_bytes[dir] = bytes[dir] != 0 || r.min_bps[dir] != 0;
            if (bytes[dir]) {
                r.bps[dir] = bytes[dir];
            } else if (iops[dir]) {
                // fio's setup_rate(): rate_iops in bytes, with the smallest block size.
                if (iops[dir] > units::kMaxSize / j.min_bs(dir))
                    rep_.fail(rate_iops->ptr, "rate_iops " + std::to_string(iops[dir]) + which + " is absurdly high");
                r.bps[dir] = iops[dir] * j.min_bs(dir);
            }
            if (bytes[dir] && r.min_bps[dir] > bytes[dir])
                rep_.fail(rate_min->ptr, "rate_min " + std::to_string(r.min_bps[dir]) + which + " exceeds rate " +
                                             std::to_string(bytes[dir]) + " (fio refuses it: \"minimum rate exceeds rate\")");
            if (iops[dir] && r.min_iops[dir] > iops[dir])
                rep_.fail(rate_iops_min->ptr, "rate_iops_min " + std::to_string(r.min_iops[dir]) + which +
                                                  " exceeds rate_iops " + std::to_string(iops[dir]) +
                                                  " (fio refuses it: \"minimum rate exceeds rate\")");
            if (r.poisson && r.bps[dir] && r.bps[dir] < j.min_bs(dir))
                rep_.fail((rate ? rate : rate_iops)->ptr,
                          "rate_process=poisson needs at least one block per second" + which + ": " +
                              std::to_string(r.bps[dir]) + " bytes/s is less than the block size " +
                              std::to_string(j.min_bs(dir)) + " (fio divides by zero)");
        }
        if (r.caps() && j.replay)
            rep_.fail((rate ? rate : rate_iops)->ptr,
                      "rate and rate_iops have no effect on a read_iolog replay (fio ignores them there); "
                      "the replay keeps its recorded timing");
    }

    // fio's thinktime options: thinktime and thinktime_spin in microseconds when the unit is
    // left out, thinktime_iotime in seconds.
    void decode_thinktime(const Options& o, workload::JobConfig& j) const {
        workload::JobConfig::ThinkTime& t = j.thinktime;
        const auto duration = [&](const char* name, units::TimeUnit unit, sim::Duration& field) {
            const Opt* v = get(o, name);
            if (!v) return;
            field = parse_time_at(*v->value, v->ptr, unit, rep_);
            if (field > kMaxRuntime) rep_.fail(v->ptr, std::string(name) + " is longer than a year");
        };
        duration("thinktime", units::TimeUnit::USEC, t.time);
        duration("thinktime_spin", units::TimeUnit::USEC, t.spin);
        duration("thinktime_iotime", units::TimeUnit::SEC, t.iotime);
        if (const Opt* v = get(o, "thinktime_blocks")) {
            t.blocks = v->value->get<uint64_t>();
            t.blocks_set = true;
        }
        if (const Opt* v = get(o, "thinktime_blocks_type")) t.blocks_issue = text(*v) == "issue";
    }

    // fio's compatibility mode makes "4KiB" 4000 bytes; say so when that is the likely cause.
    static std::string kib_note(const Opt& v, units::KbBase kb_base) {
        const std::string t = text(v);
        if (kb_base != units::KbBase::B1024 || t.find_first_of("iI") == std::string::npos) return "";
        return " (with fio's default kb_base=1024, KiB/MiB mean 1000/1000^2 bytes: write 4k, or set kb_base=1000)";
    }

    void decode_depths(const Options& o, workload::JobConfig& j) const {
        if (const Opt* v = get(o, "numjobs")) j.numjobs = static_cast<uint32_t>(v->value->get<uint64_t>());
        if (const Opt* v = get(o, "iodepth")) j.iodepth = static_cast<uint32_t>(v->value->get<uint64_t>());
        const auto batch = [&](const char* name, uint32_t& field) {
            const Opt* v = get(o, name);
            if (!v) return;
            const uint64_t n = v->value->get<uint64_t>();
            if (n > j.iodepth)
                rep_.fail(v->ptr, std::string(v->given_name) + " " + std::to_string(n) +
                                      " is larger than iodepth " + std::to_string(j.iodepth) + " (allowed: 0..iodepth)");
            field = static_cast<uint32_t>(n);
        };
        batch("iodepth_batch_submit", j.iodepth_batch_submit);
        batch("iodepth_batch_complete_min", j.iodepth_batch_complete_min);
        batch("iodepth_batch_complete_max", j.iodepth_batch_complete_max);
        // The effective values, as fio's fixup_options() computes them: a submit batch of 0
        // means iodepth, and the reap maximum is never below the minimum (nor below one,
        // since fio reaps at least one event when it has to wait).
        if (j.iodepth_batch_submit == 0) j.iodepth_batch_submit = j.iodepth;
        j.iodepth_batch_complete_max =
            std::max({j.iodepth_batch_complete_max, j.iodepth_batch_complete_min, uint32_t{1}});
    }

    // bytes * percent / 100 without overflow (fio: real_file_size * percent / 100).
    static uint64_t percent_of(uint64_t bytes, uint32_t percent) {
        return bytes / 100 * percent + bytes % 100 * percent / 100;
    }

    void decode_region(const Options& o, units::KbBase kb_base, workload::JobConfig& j,
                       const dev::DeviceConfig& d) const {
        const uint64_t capacity = capacity_bytes(d);
        const uint64_t min_bs = std::min(j.bs_read, j.bs_write);
        const auto size_or_percent = [&](const Opt& v) {
            return parse_at(v, [&](const std::string& s) { return units::parse_size_or_percent(s, kb_base); });
        };
        if (const Opt* v = get(o, "offset")) {
            const units::SizeOrPercent off = size_or_percent(*v);
            // fio aligns a percentage offset down to the block size.
            j.offset = off.is_percent ? percent_of(capacity, off.percent) / min_bs * min_bs : off.bytes;
            if (j.offset >= capacity)
                rep_.fail(v->ptr, "offset " + std::to_string(j.offset) + " is beyond the end of " + d.name +
                                      " (" + std::to_string(capacity) + " bytes)");
        }
        const Opt* v = get(o, "size");
        if (!v) return;  // 0: the device from offset on
        const units::SizeOrPercent size = size_or_percent(*v);
        j.size = size.is_percent ? percent_of(capacity, size.percent) : size.bytes;
        if (j.size == 0) rep_.fail(v->ptr, "size must be larger than 0");
        if (j.size > capacity - j.offset)
            rep_.fail(v->ptr, "offset + size (" + std::to_string(j.offset) + " + " + std::to_string(j.size) +
                                  " bytes) is beyond the end of " + d.name + " (" + std::to_string(capacity) + " bytes)");
        const uint64_t max_bs = std::max(j.max_bs(0), j.max_bs(1));
        if (j.size < max_bs)
            rep_.fail(v->ptr, "size " + std::to_string(j.size) + " is smaller than the block size " + std::to_string(max_bs));
    }

    void decode_times(const Options& o, workload::JobConfig& j) const {
        const auto duration = [&](const char* name, sim::Duration& field) -> const Opt* {
            const Opt* v = get(o, name);
            if (!v) return nullptr;
            field = parse_time_at(*v->value, v->ptr, units::TimeUnit::SEC, rep_);
            if (field > kMaxRuntime) rep_.fail(v->ptr, std::string(name) + " is longer than a year");
            return v;
        };
        duration("runtime", j.runtime);
        duration("ramp_time", j.ramp_time);
        if (const Opt* v = get(o, "time_based")) {
            j.time_based = boolean(*v);
            if (j.time_based && j.runtime.count() == 0)
                rep_.fail(v->ptr, "time_based needs runtime (how long to run)");
        }
    }

    std::vector<uint32_t> decode_cpus(const Opt& v) const {
        const std::vector<uint32_t> cpus = parse_at(v, [](const std::string& s) { return units::parse_cpu_list(s); });
        const uint32_t nr = nr_cpus_;
        for (uint32_t c : cpus)
            if (c >= nr)
                rep_.fail(v.ptr, "CPU " + std::to_string(c) + " does not exist: the host has " +
                                     plural(nr, "CPU") + " (0-" + std::to_string(nr - 1) + ")");
        return cpus;
    }

    // --- value access ---

    static const Opt* get(const Options& o, std::string_view name) {
        const auto it = o.find(name);
        return it == o.end() ? nullptr : &it->second;
    }

    // A string or number as fio would see it in a job file.
    static std::string text(const Opt& v) {
        return v.value->is_string() ? v.value->get<std::string>() : v.value->dump();
    }

    // fio bools: true/false, 0/1, "0"/"1" (the schema allows exactly these).
    static bool boolean(const Opt& v) {
        if (v.value->is_boolean()) return v.value->get<bool>();
        return units::parse_bool(text(v));
    }

    template <class F>
    std::invoke_result_t<F, const std::string&> parse_at(const Opt& v, F&& parse) const {
        try {
            return parse(text(v));
        } catch (const units::ValueError& e) {
            rep_.fail(v.ptr, e.what());
        }
    }

    template <class Table>
    static const std::remove_extent_t<Table>& lookup(const Table& table, const std::string& name) {
        for (const auto& entry : table)
            if (entry.name == name) return entry;
        return table[0];  // unreachable: the schema's enum admits only names in the table
    }

    DecodeState& st_;
    const json& doc_;
    const Reporter& rep_;
    const LoadContext& ctx_;
    const json& schema_;
    std::vector<dev::DeviceConfig>& devices_ = st_.devices;
    std::unordered_map<std::string, size_t>& device_by_name_ = st_.device_by_name;
    std::vector<QueueState>& queues_ = st_.queues;
    uint32_t& nr_cpus_ = st_.nr_cpus;
};

}  // namespace

std::vector<workload::JobConfig> decode_jobs(DecodeState& st, OutputConfig& output) {
    return JobDecoder(st).decode_jobs(output);
}

namespace {

// fio input for a load: blksim fio's command line, or else the scenario's "fio" key.
struct FioInput {
    const std::vector<std::string>* args = nullptr;  // blksim fio: the fio command line
    std::string scheduler;                            // blksim fio --scheduler
    FioPolicy policy;
    fio::Settings settings;                           // out: fio's own command-line options
};

// $ncpus is the simulated host's: host.cpus, else its cost profile's (a profile that cannot be
// read gives 1 here; the decoder reports it).
uint64_t host_cpus_for_fio(const json& doc, const LoadContext& ctx) {
    if (!doc.contains("host") || !doc["host"].is_object()) return 1;
    const json& host = doc["host"];
    if (host.contains("cpus") && host["cpus"].is_number_unsigned()) return host["cpus"].get<uint64_t>();
    if (!host.contains("cost_profile") || !host["cost_profile"].is_string()) return 1;
    const std::string name = host["cost_profile"].get<std::string>();
    const fs::path path = name.ends_with(".json") ? (fs::path(name).is_absolute() ? fs::path(name) : ctx.scenario_dir / name)
                                                  : fs::path(ctx.base_dir) / "cpu" / (name + ".json");
    std::string why;
    const std::optional<std::string> text = input::read_file(path.string(), input::kMaxTextFile, why);
    if (!text || input::json_nesting_exceeded(*text)) return 1;
    const json profile = json::parse(*text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
    if (profile.is_object() && profile.contains("cpus") && profile["cpus"].is_number_unsigned())
        return profile["cpus"].get<uint64_t>();
    return 1;
}

// Replaces the doc's jobs by those of the fio input.
void expand_fio(json& doc, Reporter& rep, const LoadContext& ctx, FioInput& fio) {
    if (!doc.is_object()) return;  // the schema reports it
    std::vector<std::string> notes;
    const auto note = [&](const std::string& msg) {
        if (fio.policy.warnings) fio.policy.warnings->push_back(msg);
    };
    fio::Environment env;
    env.ncpus = host_cpus_for_fio(doc, ctx);
    env.getenv = fio.policy.getenv;

    fio::Input in;
    std::string what;
    try {
        if (fio.args) {
            what = "fio command line";
            doc.erase("global");  // the scenario's machine, the command line's jobs
            doc.erase("jobs");
            doc.erase("fio");
            in = fio::parse_command_line(*fio.args, env);
        } else {
            if (doc.contains("global") || doc.contains("jobs"))
                rep.fail("/fio", "a scenario takes its jobs either from a fio job file (\"fio\") or from \"global\" and "
                                 "\"jobs\", not both");
            if (!doc["fio"].is_string() || doc["fio"].get<std::string>().empty())
                rep.fail("/fio", "expected the path of a fio job file (relative to the scenario), got " + brief(doc["fio"]));
            fs::path p(doc["fio"].get<std::string>());
            if (p.is_relative()) p = ctx.scenario_dir / p;
            what = p.lexically_normal().string();
            if (const std::string why = input::not_a_regular_file(what); !why.empty())
                rep.fail("/fio", "cannot read the fio job file " + squote(what) + ": " + why);
            doc.erase("fio");
            in = fio::parse_job_file(what, env);
        }
    } catch (const fio::ParseError& e) {
        throw ScenarioError(e.what());
    }
    what = in.source;
    fio.settings = in.settings;

    Unsupported unsupported;
    for (const fio::Option& o : in.settings.unsupported) unsupported.add(o, "an option of the fio program, not of a job", true);
    if (const auto& f = in.settings.output_format) {
        if (!doc.contains("output") || !doc["output"].is_object()) doc["output"] = json::object();
        doc["output"]["format"] = f->value.value_or("");
        rep.note_origin("/output/format", f->describe());
    }
    if (!fio.scheduler.empty() && doc.contains("devices") && doc["devices"].is_array()) {
        if (!doc.contains("queues") || !doc["queues"].is_array()) doc["queues"] = json::array();
        json& queues = doc["queues"];
        for (const json& d : doc["devices"]) {
            if (!d.is_object() || !d.contains("name") || !d["name"].is_string()) continue;
            size_t i = 0;
            while (i < queues.size() && !(queues[i].is_object() && queues[i].value("device", json()) == d["name"])) ++i;
            if (i == queues.size()) queues.push_back(json{{"device", d["name"]}});
            json& q = queues[i];
            if (q.value("scheduler", json("none")) != fio.scheduler) q.erase("iosched");  // the old scheduler's tunables
            q["scheduler"] = fio.scheduler;
            rep.note_origin(child(child("/queues", i), "scheduler"), "--scheduler " + fio.scheduler);
        }
    }

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

Scenario load_doc(json doc, Reporter& rep, const std::string& path, const std::vector<std::string>& sets,
                  const std::string& base_dir, FioInput* fio) {
    fs::path dir = fs::path(path).parent_path();
    if (dir.empty()) dir = ".";
    LoadContext ctx{dir, base_dir};

    // With fio jobs, "jobs.N..." overrides apply to them once they are in place, and
    // "queues..." ones once --scheduler has made the queue entries, so that the scheduler's
    // tunables can be set: --scheduler kyber --set queues.0.iosched.read_lat_nsec=1000000.
    ctx.fio_jobs = fio && (fio->args || (doc.is_object() && doc.contains("fio")));
    std::vector<std::string> job_sets;
    for (const std::string& set : sets) {
        if (ctx.fio_jobs && (set.starts_with("jobs.") || set.starts_with("queues"))) job_sets.push_back(set);
        else apply_set(doc, set, rep);
    }
    if (ctx.fio_jobs) expand_fio(doc, rep, ctx, *fio);
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

// The machines `blksim fio --device NAME` knows without a scenario file.
struct BuiltinMachine {
    std::string_view name, aliases, help;
    std::string_view device, model;
};
constexpr BuiltinMachine kBuiltinMachines[] = {
    {"nullb", "nullb0,null_blk", "null_blk with the kernel's defaults (modprobe null_blk) on the desktop-8t host",
     "nullb0", "null_blk"},
    {"nvme", "nvme0n1", "blksim's NVMe SSD model with its defaults on the desktop-8t host", "nvme0n1", "nvme"},
};
constexpr std::string_view kFioHost = "desktop-8t";  // the host of a built-in machine or device profile

// The scenario document for --device: a scenario file, a device profile or a built-in machine.
json fio_machine(const std::string& device, const std::string& base_dir, std::string& path) {
    path = device;
    const bool is_path = device.ends_with(".json") || device.find('/') != std::string::npos;
    if (is_path) {
        const Reporter rep(device);
        return parse_json(read_text_file(device, rep, "scenario"), rep);
    }
    const json host = json{{"cost_profile", kFioHost}};
    for (const BuiltinMachine& m : kBuiltinMachines) {
        bool match = m.name == device;
        for (std::string_view list = m.aliases; !match && !list.empty();) {
            const size_t comma = list.find(',');
            match = list.substr(0, comma) == device;
            list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
        }
        if (match)
            return json{{"host", host}, {"devices", json::array({json{{"name", m.device}, {"model", m.model}}})}};
    }
    const fs::path profile = fs::path(base_dir) / "devices" / (device + ".json");
    std::error_code ec;
    if (fs::is_regular_file(profile, ec)) {
        const Reporter rep(profile.string());
        const json p = parse_json(read_text_file(profile, rep, "device profile"), rep);
        if (!p.is_object() || !p.contains("model") || !p["model"].is_string())
            rep.fail_file("a device profile needs a \"model\"");
        // The kernel's name for a disk of that kind.
        const std::string model = p["model"].get<std::string>();
        const std::string name = model == "nvme" ? "nvme0n1" : model == "null_blk" ? "nullb0" : "sda";
        path = profile.string();
        return json{{"host", host},
                    {"devices", json::array({json{{"name", name}, {"model", model}, {"profile", device}}})}};
    }
    throw ScenarioError("--device " + squote(device) + ": not a scenario file (a path ending in .json), a device profile "
                        "(" + (fs::path(base_dir) / "devices").string() + "/<name>.json) or a built-in machine; known: " +
                        join(fio_devices(base_dir)));
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
    const Reporter rep(path);
    FioInput fio;
    fio.policy = policy;
    return load(read_text_file(path, rep, "scenario"), path, sets, base_dir, &fio);
}

FioRun load_fio_command(const FioCommand& cmd, const std::string& base_dir) {
    std::string path;
    json doc = fio_machine(cmd.device, base_dir, path);
    FioInput fio;
    fio.args = &cmd.fio_args;
    fio.scheduler = cmd.scheduler;
    fio.policy = cmd.policy;
    Reporter rep(path);
    FioRun run;
    run.scenario = load_doc(std::move(doc), rep, path, cmd.sets, base_dir, &fio);
    run.parse_only = fio.settings.parse_only;
    if (fio.settings.output) run.output_file = fio.settings.output->value.value_or("");
    return run;
}

std::vector<std::string> fio_devices(const std::string& base_dir) {
    std::vector<std::string> names;
    for (const BuiltinMachine& m : kBuiltinMachines) names.emplace_back(m.name);
    std::vector<std::string> profiles;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(fs::path(base_dir) / "devices", ec))
        if (entry.path().extension() == ".json") profiles.push_back(entry.path().stem().string());
    std::sort(profiles.begin(), profiles.end());
    names.insert(names.end(), profiles.begin(), profiles.end());
    return names;
}

std::string default_scenario_dir() {
#ifdef BLKSIM_SCENARIO_DIR
    return BLKSIM_SCENARIO_DIR;
#else
    return "scenarios";
#endif
}

std::vector<std::string> supported_fio_options() {
    std::vector<std::string> names;
    for (const FioOption& o : kFioOptions) names.emplace_back(o.name);
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<DeviceProfileInfo> device_profiles(const std::string& base_dir) {
    std::vector<DeviceProfileInfo> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(fs::path(base_dir) / "devices", ec)) {
        if (entry.path().extension() != ".json") continue;
        const Reporter rep(entry.path().string());
        const json p = parse_json(read_text_file(entry.path(), rep, "device profile"), rep);
        out.push_back({entry.path().stem().string(), p.value("model", std::string("?")),
                       p.value("description", std::string())});
    }
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    return out;
}

std::vector<std::string> supported_schedulers() {
    std::vector<std::string> names;
    for (const sched::SchedulerKind* k : sched::scheduler_kinds()) names.emplace_back(k->name());
    return names;
}

}  // namespace blksim::scenario
