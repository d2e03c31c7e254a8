#include "tools/experiment/regress.h"

#include <filesystem>
#include <limits>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/report/fio_format.h"
#include "models/report/fio_output.h"
#include "tools/experiment/json_obj.h"
#include "tools/experiment/reproduce.h"
#include "tools/experiment/thread_pool.h"
#include "tools/input/input_file.h"
#include "tools/input/nesting.h"
#include "tools/scenario/scenario.h"

namespace blksim::experiment {

namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;
using Obj = JsonObj<SuiteError>;

constexpr uint32_t kSuiteVersionMax = 4;  // the suite format this build reads

ojson parse_file(const std::string& path, const char* what) {
    std::string why;
    const std::optional<std::string> text = input::read_file(path, input::kMaxDataFile, why);
    if (!text)
        throw SuiteError(fmt::format("{}: cannot read the {}: {}", path, what, why));
    if (const auto deep = input::json_nesting_exceeded(*text))
        throw SuiteError(fmt::format("{}: {}", path, input::nesting_message(*deep)));
    ojson j = ojson::parse(*text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw SuiteError(fmt::format("{}: not a JSON object", path));
    return j;
}

unsigned positive(const Obj& o, const std::string& key, unsigned max) {
    const double v = o.number(key);
    if (v < 1 || v > max || v != static_cast<double>(static_cast<unsigned>(v)))
        throw o.error(key, fmt::format("must be an integer 1..{}", max));
    return static_cast<unsigned>(v);
}

// "queues.Q.iosched.fifo_batch=1" → one override per queue of the case.
void add_per_queue(const std::vector<std::string>& sets, std::size_t nr_queues, std::vector<std::string>& out) {
    for (const std::string& s : sets) {
        const auto q = s.find("queues.Q.");
        if (q == std::string::npos) {
            out.push_back(s);
            continue;
        }
        for (std::size_t i = 0; i < nr_queues; ++i)
            out.push_back(s.substr(0, q) + fmt::format("queues.{}.", i) + s.substr(q + 9));
    }
}

struct Variant {
    std::string name;
    std::vector<std::string> sets;
};
using Variants = std::vector<std::pair<std::string, std::vector<Variant>>>;  // by scheduler, in file order

constexpr std::string_view kKernelPrefix = "kernel:";

// The suite's scheduler a name of --scheduler runs the variants of ("kernel:mq-deadline":
// mq-deadline's).
std::string_view suite_scheduler(std::string_view name) {
    return name.substr(0, kKernelPrefix.size()) == kKernelPrefix ? name.substr(kKernelPrefix.size()) : name;
}

Variants read_variants(const Obj& top, const std::vector<std::string>& only) {
    if (!top.j.contains("schedulers") || !top.j.at("schedulers").is_object() || top.j.at("schedulers").empty())
        throw top.error("schedulers", "missing or not an object {\"<scheduler>\": [variants]}");
    Variants out;
    for (const auto& item : top.j.at("schedulers").items()) {
        // Named, not a structured binding: clang 14 cannot capture one in a lambda.
        const std::string& suite_name = item.key();
        const auto& list = item.value();
        const std::string where = top.path + ".schedulers." + suite_name;
        if (!list.is_array() || list.empty())
            throw SuiteError(fmt::format("{}: {}: must be a non-empty array of variants", top.file, where));
        const auto chosen = std::find_if(only.begin(), only.end(), [&](const std::string& s) { return suite_scheduler(s) == suite_name; });
        if (!only.empty() && chosen == only.end())
            continue;
        const std::string name = only.empty() ? suite_name : *chosen;
        std::vector<Variant> vs;
        for (std::size_t i = 0; i < list.size(); ++i) {
            if (!list[i].is_object())
                throw SuiteError(fmt::format("{}: {}[{}]: must be an object", top.file, where, i));
            const Obj v{list[i], top.file, fmt::format("{}[{}]", where, i)};
            v.only({"name", "set", "why"});
            vs.push_back({v.str("name"), v.strings("set")});
        }
        out.emplace_back(name, std::move(vs));
    }
    for (const std::string& s : only)
        if (std::none_of(out.begin(), out.end(), [&](const auto& p) { return p.first == s; }))
            throw SuiteError(fmt::format("--scheduler {}: the suite {} has no such scheduler", s, top.file));
    return out;
}

// One case crossed with every variant: each cell's scenario loaded with the case's overrides,
// the scheduler on every queue, and the variant's.
void add_case_cells(const Obj& c, const fs::path& dir, const Variants& variants, const std::string& kernel_tree,
                    RegressSuite& s) {
    c.only({"name", "scenario", "set", "schedulers", "why"});
    const std::string name = c.str("name");
    const std::string file = (dir / c.str("scenario")).lexically_normal().string();
    std::vector<std::string> sets = c.strings("set");
    if (!kernel_tree.empty())
        sets.push_back("kernel.tree=" + fs::absolute(kernel_tree).lexically_normal().string());
    const std::vector<std::string> scheds = c.strings("schedulers");
    std::size_t nr_queues = 0;
    try {
        nr_queues = scenario::load_scenario(file, sets).machine.queues.size();
    } catch (const scenario::ScenarioError& e) {
        throw c.error("scenario", e.what());
    }
    if (nr_queues == 0)
        throw c.error("scenario", "the scenario has no queues entry: the suite sets each queue's scheduler");
    for (const auto& [sched, vs] : variants) {
        if (!scheds.empty() && std::find(scheds.begin(), scheds.end(), suite_scheduler(sched)) == scheds.end())
            continue;
        for (const Variant& v : vs) {
            std::vector<std::string> all = sets;
            add_per_queue({"queues.Q.scheduler=" + sched}, nr_queues, all);
            add_per_queue(v.sets, nr_queues, all);
            topology::MachineConfig machine;
            try {
                machine = scenario::load_scenario(file, all).machine;
            } catch (const scenario::ScenarioError& e) {
                throw c.error("", fmt::format("with {} variant '{}': {}", sched, v.name, e.what()));
            }
            s.cells.push_back(RegressCell{fmt::format("{}/{}/{}", name, sched, v.name), sched, std::move(machine),
                                          file, std::move(all)});
        }
    }
}

}  // namespace

RegressSuite load_regress_suite(const std::string& path, const std::vector<std::string>& only,
                                const std::string& kernel_tree) {
    const bool kernel = std::any_of(only.begin(), only.end(), [](const std::string& s) { return s != suite_scheduler(s); });
    if (kernel != !kernel_tree.empty())
        throw SuiteError(kernel ? "a kernel:<scheduler> runs the kernel's own source: name it with --kernel-tree"
                                : "--kernel-tree is for --scheduler kernel:<scheduler>");
    const ojson j = parse_file(path, "regression suite");
    const Obj top{j, path, "$"};
    top.only({"blksim_regress_suite", "description", "runs", "seed", "gates_pct", "cases", "schedulers"});
    RegressSuite s;
    s.path = path;
    s.version = positive(top, "blksim_regress_suite", kSuiteVersionMax);
    s.runs = positive(top, "runs", 100);
    if (s.runs < 2)
        throw top.error("runs", "must be at least 2 (a confidence interval needs two pairs)");
    s.seed = positive(top, "seed", std::numeric_limits<unsigned>::max());
    if (j.contains("gates_pct")) {
        if (!j.at("gates_pct").is_object())
            throw top.error("gates_pct", "must be an object {\"<metric name>\": percent}");
        const Obj g{j.at("gates_pct"), path, "$.gates_pct"};
        for (const auto& [k, v] : j.at("gates_pct").items())
            (k == "default" ? s.default_gate_pct : s.gates_pct[k]) = g.number(k);
    }
    const Variants variants = read_variants(top, only);
    if (!j.contains("cases") || !j.at("cases").is_array() || j.at("cases").empty())
        throw top.error("cases", "missing or not a non-empty array of cases");
    const fs::path dir = fs::path(path).parent_path();
    std::set<std::string> names;
    for (std::size_t i = 0; i < j.at("cases").size(); ++i) {
        const ojson& c = j.at("cases")[i];
        if (!c.is_object())
            throw SuiteError(fmt::format("{}: $.cases[{}]: must be an object", path, i));
        const Obj o{c, path, fmt::format("$.cases[{}]", i)};
        if (!names.insert(o.str("name")).second)
            throw o.error("name", "a case of this name comes earlier");
        add_case_cells(o, dir, variants, kernel_tree, s);
    }
    return s;
}

// reproduce's figures (compare's, the largest clat, per-priority clat means), then what
// regress adds: slat, per-priority clat p99 and the groups' CPU time.
std::vector<Metric> regress_metrics(const result::RunResult& r) {
    std::vector<Metric> out = reproduce_metrics(r);
    const std::vector<result::JobResult> groups = report::fio::thread_stats(r, true);
    const std::vector<std::string> names = group_names(groups);
    static constexpr const char* DIRS[] = {"read", "write"};
    static constexpr std::array<double, 1> P99 = {99.0};
    for (std::size_t g = 0; g < groups.size(); ++g) {
        for (unsigned d = 0; d < result::DDIR_RWDIR_CNT; ++d) {
            const result::DirResult& dr = groups[g].dir[d];
            if (dr.total_ios == 0)
                continue;
            const std::string k = fmt::format("{}/{}.", names[g], DIRS[d]);
            if (dr.slat.count() > 0)
                out.push_back({k + "slat_mean_ns", dr.slat.mean()});
            for (const result::PrioResult& p : dr.prios)
                if (p.clat.count() > 0)
                    out.push_back({fmt::format("{}prio{}_{}.clat_p99_ns", k, p.ioprio_class, p.ioprio_level),
                                   static_cast<double>(p.clat_hist.percentiles(P99)[0])});
        }
        out.push_back({names[g] + "/cpu.sys_ns", static_cast<double>(groups[g].cpu_sys.count())});
        out.push_back({names[g] + "/cpu.busy_ns", static_cast<double>(groups[g].cpu_busy.count())});
    }
    for (const result::QueueReport& q : r.queues)
        for (const auto& [name, value] : q.sched_figures)
            out.push_back({q.name + "/" + name, value});
    return out;
}

uint64_t report_digest(const result::RunResult& r) {
    uint64_t h = 14695981039346656037ull;  // FNV-1a, 64 bits
    // The schedulers' own figures too, which the report does not print: a change in them is
    // a change of behaviour.
    std::string figures;
    for (const result::QueueReport& q : r.queues)
        for (const auto& [name, value] : q.sched_figures)
            figures += fmt::format("{}/{}={}\n", q.name, name, value);
    for (const std::string& part : {report::format_json(r, false, true), report::format_blksim_extras(r), figures})
        for (const char c : part) {
            h ^= static_cast<unsigned char>(c);
            h *= 1099511628211ull;
        }
    return h;
}

RegressResults run_regress_suite(const RegressSuite& s, unsigned jobs,
                                 const std::function<void(std::size_t, std::size_t)>& progress) {
    RegressResults res;
    res.version = s.version;
    for (unsigned i = 0; i < s.runs; ++i)
        res.seeds.push_back(s.seed + i);
    const std::size_t n = s.cells.size() * s.runs;
    std::vector<SimOutcome> out(n);
    parallel_for(
        n, jobs,
        [&](std::size_t t) {
            topology::MachineConfig cfg = s.cells[t / s.runs].machine;
            cfg.seed = res.seeds[t % s.runs];
            out[t] = simulate_with(cfg, [](const result::RunResult& r, SimOutcome& o) {
                o.metrics = regress_metrics(r);
                o.digest = report_digest(r);
            });
        },
        [&](std::size_t done) { progress(done, n); });
    for (std::size_t c = 0; c < s.cells.size(); ++c) {
        CellResult cr{s.cells[c].name, {}, {}};
        for (unsigned i = 0; i < s.runs; ++i) {
            SimOutcome& o = out[c * s.runs + i];
            if (o.status != 0)
                throw std::runtime_error(fmt::format("{} (seed {}): {}", cr.cell, res.seeds[i], o.error));
            cr.digests.push_back(o.digest);
            cr.metrics.push_back(std::move(o.metrics));
        }
        res.cells.push_back(std::move(cr));
    }
    return res;
}

std::string results_to_json(const RegressResults& r) {
    ojson j;
    j["blksim_regress_results"] = 1;
    j["suite_version"] = r.version;
    j["seeds"] = r.seeds;
    ojson cells = ojson::array();
    for (const CellResult& c : r.cells) {
        ojson cj;
        cj["cell"] = c.cell;
        ojson digests = ojson::array();
        for (const uint64_t d : c.digests)
            digests.push_back(fmt::format("{:016x}", d));
        cj["digests"] = digests;
        ojson metrics = ojson::object();
        for (std::size_t i = 0; i < c.metrics.size(); ++i)
            for (const Metric& m : c.metrics[i])
                metrics[m.key].push_back(m.value);
        cj["metrics"] = metrics;
        cells.push_back(std::move(cj));
    }
    j["cells"] = std::move(cells);
    return j.dump(1) + "\n";
}

namespace {

CellResult read_cell(const Obj& o, std::size_t runs) {
    o.only({"cell", "digests", "metrics"});
    CellResult c{o.str("cell"), {}, std::vector<std::vector<Metric>>(runs)};
    const std::vector<std::string> digests = o.strings("digests");
    if (digests.size() != runs)
        throw o.error("digests", fmt::format("must hold one digest per seed ({})", runs));
    for (const std::string& d : digests) {
        std::size_t used = 0;
        uint64_t v = 0;
        try {
            v = std::stoull(d, &used, 16);
        } catch (const std::exception&) {
            used = 0;
        }
        if (d.size() != 16 || used != 16)
            throw o.error("digests", "each must be 16 hex digits");
        c.digests.push_back(v);
    }
    if (!o.j.contains("metrics") || !o.j.at("metrics").is_object())
        throw o.error("metrics", "missing or not an object {\"<metric>\": [one value per seed]}");
    for (const auto& [k, v] : o.j.at("metrics").items()) {
        if (!v.is_array() || v.size() != runs || !std::all_of(v.begin(), v.end(), [](const ojson& x) { return x.is_number(); }))
            throw o.error("metrics." + k, fmt::format("must be an array of {} numbers", runs));
        for (std::size_t i = 0; i < runs; ++i)
            c.metrics[i].push_back({k, v[i].get<double>()});
    }
    return c;
}

}  // namespace

RegressResults results_from_json(const std::string& text, const std::string& path) {
    if (const auto deep = input::json_nesting_exceeded(text))
        throw SuiteError(fmt::format("{}: {}", path, input::nesting_message(*deep)));
    const ojson j = ojson::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw SuiteError(fmt::format("{}: not a JSON object", path));
    const Obj top{j, path, "$"};
    top.only({"blksim_regress_results", "suite_version", "seeds", "cells"});
    if (!j.contains("blksim_regress_results") || j.at("blksim_regress_results") != 1)
        throw top.error("blksim_regress_results", "must be 1 (this file is not blksim regress results)");
    RegressResults r;
    r.version = positive(top, "suite_version", kSuiteVersionMax);
    if (!j.contains("seeds") || !j.at("seeds").is_array() || j.at("seeds").size() < 2 ||
        !std::all_of(j.at("seeds").begin(), j.at("seeds").end(), [](const ojson& x) { return x.is_number_unsigned(); }))
        throw top.error("seeds", "must be an array of at least 2 seeds");
    r.seeds = j.at("seeds").get<std::vector<uint64_t>>();
    if (!j.contains("cells") || !j.at("cells").is_array())
        throw top.error("cells", "missing or not an array");
    for (std::size_t i = 0; i < j.at("cells").size(); ++i) {
        const ojson& c = j.at("cells")[i];
        if (!c.is_object())
            throw SuiteError(fmt::format("{}: $.cells[{}]: must be an object", path, i));
        r.cells.push_back(read_cell(Obj{c, path, fmt::format("$.cells[{}]", i)}, r.seeds.size()));
    }
    return r;
}

namespace {

// The gate of a key "<group>/<dir>.<name>": the suite's gate of <name>, else its default.
double gate_of(const RegressSuite& s, const std::string& key) {
    const auto dot = key.find('.', key.rfind('/') == std::string::npos ? 0 : key.rfind('/'));
    std::string name = dot == std::string::npos ? key : key.substr(dot + 1);
    if (name.rfind("prio", 0) == 0 && name.find('.') != std::string::npos)
        name = name.substr(name.find('.') + 1);  // prio2_0.clat_p99_ns: gated as clat_p99_ns
    const auto it = s.gates_pct.find(name);
    return it != s.gates_pct.end() ? it->second : s.default_gate_pct;
}

// A figure of the policy's own state ("nullb0/kyber_write.depth_min"), not of a job group's
// direction or CPU time: it has no better direction, so a change beyond the gate either way
// is a regression.
bool is_policy_state(const std::string& key) {
    const std::size_t slash = key.rfind('/');
    const std::string section = key.substr(slash + 1, key.find('.', slash + 1) - slash - 1);
    return section != "read" && section != "write" && section != "cpu";
}

// Why two runs' reports differ: the first figure that does, or that only the text does.
std::string first_difference(const CellResult& a, const CellResult& b) {
    for (std::size_t i = 0; i < a.digests.size(); ++i) {
        if (a.digests[i] == b.digests[i])
            continue;
        for (const Metric& m : a.metrics[i])
            for (const Metric& n : b.metrics[i])
                if (n.key == m.key && n.value != m.value)
                    return fmt::format("run {}: {} {} -> {}", i, m.key, m.value, n.value);
        return fmt::format("run {}: the reports differ, the compared figures do not", i);
    }
    return {};
}

}  // namespace

RegressVerdict judge_regress(const RegressSuite& s, const RegressResults& base, const RegressResults& build,
                             double confidence) {
    if (base.version != build.version || base.seeds != build.seeds)
        throw SuiteError(fmt::format("the baseline was run on suite version {} with {} seeds from {}, this build on "
                                     "version {} with {} seeds from {}: regenerate the baseline with this suite",
                                     base.version, base.seeds.size(), base.seeds.empty() ? 0 : base.seeds[0],
                                     build.version, build.seeds.size(), build.seeds.empty() ? 0 : build.seeds[0]));
    RegressVerdict v;
    v.cells = build.cells.size();
    v.runs = build.cells.size() * build.seeds.size();
    for (const CellResult& b : build.cells) {
        const auto a = std::find_if(base.cells.begin(), base.cells.end(), [&](const CellResult& c) { return c.cell == b.cell; });
        if (a == base.cells.end()) {
            v.missing_cells.push_back(b.cell);
            continue;
        }
        if (a->digests != b.digests) {
            v.differing_cells.push_back(b.cell);
            v.first_difference.push_back(first_difference(*a, b));
            std::size_t i = 0;
            while (i + 1 < b.digests.size() && a->digests[i] == b.digests[i])
                ++i;
            v.first_differing_run.push_back(i);
        }
        for (const CompareRow& row : compare_runs(a->metrics, b.metrics, confidence)) {
            if (!row.ci.significant())
                continue;
            RegressChange ch{b.cell, row, gate_of(s, row.key), false};
            ch.regression = (row.verdict == Verdict::WORSE || is_policy_state(row.key)) &&
                            std::abs(row.ci.rel_change_pct()) > ch.gate_pct;
            v.regressions += ch.regression ? 1 : 0;
            v.changes.push_back(std::move(ch));
        }
    }
    return v;
}

std::string format_regress_normal(const RegressVerdict& v, bool exact, const std::string& baseline_name) {
    std::string out = fmt::format("blksim regress: {} cells, {} runs, against {}\n", v.cells, v.runs, baseline_name);
    for (const std::string& c : v.missing_cells)
        out += fmt::format("  not in the baseline: {}\n", c);
    if (v.differing_cells.empty())
        out += "outputs: identical in every cell (no functional change)\n";
    else
        out += fmt::format("outputs: differ in {} of {} cells\n", v.differing_cells.size(), v.cells);
    for (std::size_t i = 0; i < v.differing_cells.size(); ++i)
        out += fmt::format("  {}: {}\n", v.differing_cells[i], v.first_difference[i]);
    if (!exact) {
        out += fmt::format("significant changes (95 % paired CI excludes 0): {}, regressions beyond their gate: {}\n",
                           v.changes.size(), v.regressions);
        if (!v.changes.empty())
            out += fmt::format("  {:<44} {:<34} {:>14} {:>14} {:>9} {:>6}  {}\n", "cell", "metric", "baseline",
                               "this build", "change", "gate", "verdict");
        for (const RegressChange& c : v.changes)
            out += fmt::format("  {:<44} {:<34} {:>14.6g} {:>14.6g} {:>+8.2f}% {:>5.1f}%  {}\n", c.cell,
                               c.row.key, c.row.ci.mean_a, c.row.ci.mean_b, c.row.ci.rel_change_pct(), c.gate_pct,
                               c.regression ? "REGRESSION" : verdict_name(c.row.verdict));
    }
    const bool failed = exact ? !v.differing_cells.empty() : v.regressions > 0;
    out += fmt::format("verdict: {}\n", failed ? (exact ? "outputs changed" : "regression") : "pass");
    return out;
}

std::string format_regress_json(const RegressVerdict& v, bool exact, const std::string& baseline_name) {
    ojson j;
    j["baseline"] = baseline_name;
    j["mode"] = exact ? "exact" : "statistical";
    j["cells"] = v.cells;
    j["runs"] = v.runs;
    j["missing_cells"] = v.missing_cells;
    ojson diff = ojson::array();
    for (std::size_t i = 0; i < v.differing_cells.size(); ++i)
        diff.push_back({{"cell", v.differing_cells[i]}, {"first_difference", v.first_difference[i]}});
    j["differing_cells"] = diff;
    ojson changes = ojson::array();
    for (const RegressChange& c : v.changes)
        changes.push_back({{"cell", c.cell}, {"metric", c.row.key}, {"baseline", c.row.ci.mean_a},
                           {"build", c.row.ci.mean_b}, {"change_pct", c.row.ci.rel_change_pct()},
                           {"ci_lo", c.row.ci.lo()}, {"ci_hi", c.row.ci.hi()}, {"gate_pct", c.gate_pct},
                           {"verdict", c.regression ? "regression" : verdict_name(c.row.verdict)}});
    j["changes"] = changes;
    j["regressions"] = v.regressions;
    j["pass"] = exact ? v.differing_cells.empty() : v.regressions == 0;
    return j.dump(2) + "\n";
}

}  // namespace blksim::experiment
