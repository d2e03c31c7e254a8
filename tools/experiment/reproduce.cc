#include "tools/experiment/reproduce.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/report/fio_format.h"
#include "tools/input/input_file.h"
#include "tools/input/nesting.h"
#include "tools/experiment/json_obj.h"
#include "tools/experiment/stats.h"

namespace blksim::experiment {

namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// The display units a published figure may be written in, per kind of metric, and what the
// metric (IOPS, bytes/s or ns) is divided by to get there.
struct Unit {
    std::string_view name;
    double scale;
};
constexpr Unit IOPS_UNITS[] = {{"IOPS", 1.0}, {"k IOPS", 1e3}, {"M IOPS", 1e6}};
constexpr Unit BW_UNITS[] = {{"B/s", 1.0}, {"KiB/s", 1024.0}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0},
                             {"MB/s", 1e6}, {"GB/s", 1e9}};
constexpr Unit TIME_UNITS[] = {{"ns", 1.0}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};

// "<dir>.<name>" after the last '/': the name a metric key ends with.
std::string_view metric_name(std::string_view metric) {
    const auto slash = metric.rfind('/');
    std::string_view s = slash == std::string_view::npos ? metric : metric.substr(slash + 1);
    const auto dot = s.find('.');
    return dot == std::string_view::npos ? std::string_view{} : s.substr(dot + 1);
}

// Which units a metric may be shown in; empty when the metric is not one reproduce knows.
std::span<const Unit> units_of(std::string_view metric) {
    const auto slash = metric.rfind('/');
    const std::string_view s = slash == std::string_view::npos ? metric : metric.substr(slash + 1);
    if (!(s.starts_with("read.") || s.starts_with("write.")))
        return {};
    const std::string_view name = metric_name(metric);
    if (name == "iops")
        return IOPS_UNITS;
    if (name == "bw_bytes")
        return BW_UNITS;
    // reproduce_metrics' per-priority figure is the mean (prio<class>_<level>.clat_mean_ns).
    const bool prio_mean = name.starts_with("prio") && name.ends_with(".clat_mean_ns");
    if (name == "clat_max_ns" || ((prio_mean || name.starts_with("clat_")) && is_metric_suffix(s)))
        return TIME_UNITS;
    return {};
}

std::string unit_names(std::span<const Unit> units) {
    std::string s;
    for (const Unit& u : units)
        s += fmt::format("{}\"{}\"", s.empty() ? "" : ", ", u.name);
    return s;
}

// Readers of one JSON object that name the file and the JSON path in every error and refuse
// keys they do not know.
using Obj = JsonObj<ReproduceError>;

RunSpec read_run(const Obj& o, const fs::path& dir) {
    RunSpec r;
    const std::string rel = o.str("scenario");
    const fs::path p = fs::path(rel).is_absolute() ? fs::path(rel) : dir / rel;
    if (!fs::is_regular_file(p))
        throw o.error("scenario", fmt::format("'{}': no such scenario file ({})", rel, p.string()));
    r.scenario = p.lexically_normal().string();
    r.sets = o.strings("sets");
    return r;
}

double read_published(const Obj& o) {
    if (!o.j.contains("published"))
        throw o.error("published", "missing (a number, or {\"ratio\": [a, b]})");
    const ojson& p = o.j.at("published");
    if (p.is_number())
        return o.number("published");
    if (p.is_object() && p.size() == 1 && p.contains("ratio") && p.at("ratio").is_array() &&
        p.at("ratio").size() == 2 && p.at("ratio")[0].is_number() && p.at("ratio")[1].is_number() &&
        p.at("ratio")[1].get<double>() != 0.0)
        return p.at("ratio")[0].get<double>() / p.at("ratio")[1].get<double>();
    throw o.error("published", "must be a number or {\"ratio\": [a, b]} with b != 0 (a / b of two published figures)");
}

Tolerance read_tolerance(const Obj& o) {
    const std::string allowed = "allowed: {\"relative_pct\": P}, {\"absolute\": X} or \"direction\"";
    if (!o.j.contains("tolerance"))
        throw o.error("tolerance", "missing (" + allowed + ")");
    const ojson& t = o.j.at("tolerance");
    Tolerance tol;
    if (t.is_string() && t.get<std::string>() == "direction") {
        tol.kind = Tolerance::Kind::DIRECTION;
        return tol;
    }
    if (t.is_object() && t.size() == 1) {
        // Not `*t.items().begin()`: that refers into the temporary proxy's iterator (ASan:
        // stack-use-after-scope).
        const std::string k = t.begin().key();
        const ojson& v = t.begin().value();
        if ((k == "relative_pct" || k == "absolute") && v.is_number() && v.get<double>() > 0.0) {
            tol.kind = k == "absolute" ? Tolerance::Kind::ABSOLUTE : Tolerance::Kind::RELATIVE;
            tol.value = v.get<double>();
            return tol;
        }
    }
    throw o.error("tolerance", fmt::format("'{}' is not a tolerance ({}, with P and X > 0)", t.dump(), allowed));
}

// Four significant figures without exponents: IOPS in the hundred thousands, ratios near 1.
std::string num(double v) {
    const double a = std::fabs(v);
    if (a >= 1000.0)
        return fmt::format("{:.0f}", v);
    if (a >= 100.0)
        return fmt::format("{:.1f}", v);
    if (a >= 10.0)
        return fmt::format("{:.2f}", v);
    return fmt::format("{:.3f}", v);
}

// The CI's half width with as many decimals as its mean has.
std::string num_like(double v, double like) {
    const double a = std::fabs(like);
    const int decimals = a >= 1000.0 ? 0 : a >= 100.0 ? 1 : a >= 10.0 ? 2 : 3;
    return fmt::format("{:.{}f}", v, decimals);
}

std::string tolerance_text(const Tolerance& t) {
    switch (t.kind) {
    case Tolerance::Kind::RELATIVE: return fmt::format("±{:g} %", t.value);
    case Tolerance::Kind::ABSOLUTE: return fmt::format("±{:g}", t.value);
    case Tolerance::Kind::DIRECTION: break;
    }
    return "direction";
}

// How many rows have each status.
struct StatusCounts {
    std::size_t n[static_cast<int>(RowStatus::PREDICTED) + 1] = {};
    std::size_t operator[](RowStatus s) const { return n[static_cast<int>(s)]; }
};

StatusCounts count_statuses(const std::vector<RowResult>& rows) {
    StatusCounts c;
    for (const RowResult& r : rows)
        ++c.n[static_cast<int>(r.status)];
    return c;
}

std::string metric_text(const PublishedRow& r) {
    if (r.ratio_to)
        return r.metric + " ratio";
    return r.unit.empty() ? r.metric : fmt::format("{} ({})", r.metric, r.unit);
}

std::string seeds_text(const std::vector<uint64_t>& s) {
    if (s.empty())
        return "none";
    return s.size() == 1 ? fmt::format("{}", s[0]) : fmt::format("{}..{}", s.front(), s.back());
}

// A row's unit: none for a ratio row (or "ratio"), else one of its metric's units, whose
// scale the row keeps.
void read_unit(const Obj& o, PublishedRow& r) {
    const std::span<const Unit> units = units_of(r.metric);
    if (units.empty())
        throw o.error("metric", fmt::format("'{}' is not a metric of a run (allowed: [GROUP/]DIR.NAME with DIR "
                                            "read or write and NAME iops, bw_bytes, clat_mean_ns, clat_p50_ns, "
                                            "clat_p99_ns, clat_p99.9_ns, clat_max_ns or "
                                            "prio<class>_<level>.clat_mean_ns)",
                                            r.metric));
    r.unit = o.str("unit", false);
    if (r.ratio_to) {
        if (!r.unit.empty() && r.unit != "ratio")
            throw o.error("unit", fmt::format("'{}': a ratio row has no unit (allowed: omit it, or \"ratio\")", r.unit));
        r.unit.clear();
        return;
    }
    if (r.unit.empty())
        throw o.error("unit", fmt::format("missing (allowed for {}: {})", r.metric, unit_names(units)));
    const auto u = std::find_if(units.begin(), units.end(), [&](const Unit& x) { return x.name == r.unit; });
    if (u == units.end())
        throw o.error("unit", fmt::format("'{}' is not a unit of {} (allowed: {})", r.unit, r.metric,
                                          unit_names(units)));
    r.unit_scale = u->scale;
}

// One element of "rows": a published figure, the run (or two) that reproduces it, and how
// close it must come.
PublishedRow read_row(const ojson& row, const std::string& path, const std::string& where, const fs::path& dir) {
    if (!row.is_object())
        throw ReproduceError(fmt::format("{}: {}: must be an object", path, where));
    const Obj o{row, path, where};
    o.only({"experiment", "cell", "section", "scenario", "sets", "ratio_to", "metric", "unit", "published",
            "tolerance", "expect", "why", "note"});
    PublishedRow r;
    r.where = fmt::format("{}: {}", path, where);
    r.experiment = o.str("experiment");
    r.cell = o.str("cell");
    r.section = o.str("section");
    r.run = read_run(o, dir);
    if (o.j.contains("ratio_to")) {
        if (!o.j.at("ratio_to").is_object())
            throw o.error("ratio_to", "must be an object {\"scenario\": FILE, \"sets\": [...]}");
        const Obj ro{o.j.at("ratio_to"), path, where + ".ratio_to"};
        ro.only({"scenario", "sets"});
        r.ratio_to = read_run(ro, dir);
    }
    r.metric = o.str("metric");
    read_unit(o, r);
    const std::string expect = o.str("expect");
    if (expect != "pass" && expect != "known_miss" && expect != "hypothesis")
        throw o.error("expect", fmt::format("'{}' (allowed: \"pass\", \"known_miss\", \"hypothesis\")", expect));
    r.known_miss = expect == "known_miss";
    r.hypothesis = expect == "hypothesis";
    // A figure held back from the source: a hypothesis row predicts it, with nothing to judge.
    r.held_back = r.hypothesis && !o.j.contains("published");
    if (r.held_back) {
        if (o.j.contains("tolerance"))
            throw o.error("tolerance", "a row without \"published\" (held back) has no tolerance");
    } else {
        r.published = read_published(o);
        r.tolerance = read_tolerance(o);
        if (r.tolerance.kind == Tolerance::Kind::DIRECTION && !r.ratio_to)
            throw o.error("tolerance", "\"direction\" compares two runs: the row needs \"ratio_to\"");
    }
    r.why = o.str("why", false);
    if (r.known_miss && r.why.empty())
        throw o.error("why", "a known_miss row must say why blksim does not reproduce it");
    if (r.hypothesis && r.why.empty())
        throw o.error("why", "a hypothesis row must say which hypothesis it runs");
    (void)o.str("note", false);
    return r;
}

// "reduced": the seeds and --set overrides of a quicker run (reproduce --reduced).
void read_reduced(const ojson& reduced, const Obj& top, const std::string& path,
                  const std::set<std::string>& experiments, PublishedData& d) {
    if (!reduced.is_object())
        throw top.error("reduced", "must be an object {\"seeds\": N, \"sets\": {\"E1\": [...], ...}}");
    const Obj red{reduced, path, "$.reduced"};
    red.only({"seeds", "sets"});
    if (reduced.contains("seeds")) {
        const double s = red.number("seeds");
        if (s < 2 || s != std::floor(s) || s > 1000)
            throw red.error("seeds", "must be an integer from 2 to 1000");
        d.reduced_seeds = static_cast<unsigned>(s);
    }
    if (reduced.contains("sets")) {
        const ojson& sets = reduced.at("sets");
        if (!sets.is_object())
            throw red.error("sets", "must be an object: experiment -> array of --set overrides");
        const Obj so{sets, path, "$.reduced.sets"};
        for (const auto& [k, v] : sets.items()) {
            if (!experiments.count(k))
                throw so.error(k, "no row has this experiment");
            d.reduced_sets.emplace_back(k, so.strings(k));
        }
    }
}

}  // namespace

PublishedData load_published(const std::string& path) {
    std::string why;
    const std::optional<std::string> file = input::read_file(path, input::kMaxDataFile, why);
    if (!file)
        throw ReproduceError(fmt::format("{}: cannot open the file: {}", path, why));
    const std::string& text = *file;
    if (const auto deep = input::json_nesting_exceeded(text))
        throw ReproduceError(fmt::format("{}: {}", path, input::nesting_message(*deep)));
    const ojson j = ojson::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw ReproduceError(fmt::format("{}: not a JSON object", path));
    const Obj top{j, path, "$"};
    top.only({"blksim_published", "description", "source", "reduced", "rows"});
    if (!j.contains("blksim_published") || j.at("blksim_published") != 1)
        throw top.error("blksim_published", "must be 1 (this file is not a blksim published-figures file)");
    PublishedData d;
    d.file = path;
    d.source = top.str("source");
    const fs::path dir = fs::path(path).parent_path();

    std::set<std::string> experiments;
    if (!j.contains("rows") || !j.at("rows").is_array() || j.at("rows").empty())
        throw top.error("rows", "missing or not a non-empty array of rows");
    const ojson& rows = j.at("rows");
    for (std::size_t i = 0; i < rows.size(); ++i) {
        PublishedRow r = read_row(rows[i], path, fmt::format("$.rows[{}]", i), dir);
        experiments.insert(r.experiment);
        d.rows.push_back(std::move(r));
    }
    if (j.contains("reduced"))
        read_reduced(j.at("reduced"), top, path, experiments, d);
    return d;
}

std::vector<Metric> reproduce_metrics(const result::RunResult& r) {
    std::vector<Metric> out = run_metrics(r);
    const std::vector<result::JobResult> groups = report::fio::thread_stats(r, true);
    const std::vector<std::string> names = group_names(groups);
    static constexpr const char* DIRS[] = {"read", "write"};
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (unsigned d = 0; d < result::DDIR_RWDIR_CNT; ++d) {
            const result::DirResult& dr = groups[g].dir[d];
            if (dr.total_ios == 0)
                continue;
            out.push_back({fmt::format("{}/{}.clat_max_ns", names[g], DIRS[d]), dr.clat.max()});
            for (const result::PrioResult& p : dr.prios)
                if (p.clat.count() > 0)
                    out.push_back({fmt::format("{}/{}.{}.clat_mean_ns", names[g], DIRS[d], prio_name(p)),
                                   p.clat.mean()});
        }
    return out;
}

std::optional<double> find_metric(const std::vector<Metric>& ms, const std::string& metric) {
    for (const Metric& m : ms)
        if (m.key == metric)
            return m.value;
    // A suffix "<dir>.<name>": the one group that has it.
    const std::string tail = "/" + metric;
    std::optional<double> found;
    for (const Metric& m : ms)
        if (m.key.ends_with(tail)) {
            if (found)
                return std::nullopt;  // in two groups: ambiguous
            found = m.value;
        }
    return found;
}

const char* row_status_name(RowStatus s) {
    switch (s) {
    case RowStatus::OK: return "ok";
    case RowStatus::FAIL: return "FAIL";
    case RowStatus::KNOWN_MISS: return "known miss";
    case RowStatus::KNOWN_MISS_NOW_WITHIN: return "known miss, now within";
    case RowStatus::HYPOTHESIS_WITHIN: return "hypothesis, within";
    case RowStatus::HYPOTHESIS_OUTSIDE: return "hypothesis, outside";
    case RowStatus::PREDICTED: break;
    }
    return "predicted";
}

RowResult evaluate_row(const PublishedRow& row, std::vector<double> values) {
    if (values.size() < 2)
        throw std::invalid_argument("evaluate_row: need at least two seeds");
    RowResult r;
    r.row = &row;
    r.values = std::move(values);
    const MeanCi ci = mean_ci(r.values, 0.95);
    r.mean = ci.mean;
    r.half_width = ci.half_width;
    if (row.held_back) {
        r.status = RowStatus::PREDICTED;
        return r;
    }
    r.error_pct = row.published != 0.0 ? 100.0 * (r.mean - row.published) / row.published : 0.0;
    switch (row.tolerance.kind) {
    case Tolerance::Kind::RELATIVE:
        r.within = std::fabs(r.mean - row.published) <= row.tolerance.value / 100.0 * std::fabs(row.published);
        break;
    case Tolerance::Kind::ABSOLUTE:
        r.within = std::fabs(r.mean - row.published) <= row.tolerance.value;
        break;
    case Tolerance::Kind::DIRECTION: {
        // The change (ratio - 1) has the published sign, and the interval excludes no change:
        // identical runs (ratio 1 exactly) match no direction.
        const double pub = row.published - 1.0;
        const bool up = r.mean - r.half_width > 1.0, down = r.mean + r.half_width < 1.0;
        r.within = (pub > 0.0 && up) || (pub < 0.0 && down);
        break;
    }
    }
    if (row.hypothesis)
        r.status = r.within ? RowStatus::HYPOTHESIS_WITHIN : RowStatus::HYPOTHESIS_OUTSIDE;
    else if (row.known_miss)
        r.status = r.within ? RowStatus::KNOWN_MISS_NOW_WITHIN : RowStatus::KNOWN_MISS;
    else
        r.status = r.within ? RowStatus::OK : RowStatus::FAIL;
    return r;
}

std::string format_reproduce_normal(const ReproduceInfo& info, const std::vector<RowResult>& rows) {
    const std::vector<std::string> head = {"exp", "cell", "metric", "published", "simulated (mean ± 95 % CI)",
                                           "error", "tolerance", "result"};
    std::vector<std::vector<std::string>> table;
    for (const RowResult& r : rows) {
        const PublishedRow& p = *r.row;
        table.push_back({p.experiment, p.cell, metric_text(p), p.held_back ? "held back" : num(p.published),
                         fmt::format("{} ± {}", num(r.mean), num_like(r.half_width, r.mean)),
                         p.held_back ? "-" : fmt::format("{:+.1f} %", r.error_pct),
                         p.held_back ? "-" : tolerance_text(p.tolerance), row_status_name(r.status)});
    }
    // Column widths in characters (the table has a few multi-byte signs: ±, −).
    auto width = [](const std::string& s) {
        std::size_t w = 0;
        for (const unsigned char c : s)
            w += (c & 0xC0) != 0x80;
        return w;
    };
    std::vector<std::size_t> w(head.size());
    for (std::size_t c = 0; c < head.size(); ++c) {
        w[c] = width(head[c]);
        for (const auto& line : table)
            w[c] = std::max(w[c], width(line[c]));
    }
    auto line = [&](const std::vector<std::string>& cells) {
        std::string s;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            // Numbers right-aligned (published, simulated, error), text left-aligned.
            const bool right = c == 3 || c == 4 || c == 5;
            const std::string pad(w[c] - width(cells[c]), ' ');
            s += (c ? "  " : "") + (right ? pad + cells[c] : cells[c] + (c + 1 < cells.size() ? pad : ""));
        }
        return s + "\n";
    };
    std::string out = fmt::format("reproduce: {} rows from {} ({}), {} seed{} ({}){}\n", rows.size(), info.data_file,
                                  info.source, info.seeds.size(), info.seeds.size() == 1 ? "" : "s",
                                  seeds_text(info.seeds), info.reduced ? ", reduced runtimes" : "");
    out += "\n" + line(head);
    std::string last;
    for (std::size_t i = 0; i < table.size(); ++i) {
        if (!last.empty() && rows[i].row->experiment != last)
            out += "\n";
        last = rows[i].row->experiment;
        out += line(table[i]);
    }
    const StatusCounts n = count_statuses(rows);
    out += fmt::format("\n{} within tolerance, {} outside tolerance that should pass (FAIL), {} known misses{}\n",
                       n[RowStatus::OK], n[RowStatus::FAIL], n[RowStatus::KNOWN_MISS],
                       n[RowStatus::KNOWN_MISS_NOW_WITHIN]
                           ? fmt::format(", {} known misses now within tolerance", n[RowStatus::KNOWN_MISS_NOW_WITHIN])
                           : std::string());
    if (const std::size_t h = n[RowStatus::HYPOTHESIS_WITHIN] + n[RowStatus::HYPOTHESIS_OUTSIDE] + n[RowStatus::PREDICTED])
        out += fmt::format("hypotheses (never a failure): {} within tolerance, {} outside, {} predictions of "
                           "held-back figures\n", n[RowStatus::HYPOTHESIS_WITHIN], n[RowStatus::HYPOTHESIS_OUTSIDE],
                           n[RowStatus::PREDICTED]);
    // Why each known miss is one, once per distinct reason.
    std::vector<std::string> whys;
    for (const RowResult& r : rows)
        if (r.row->known_miss && std::find(whys.begin(), whys.end(), r.row->experiment + ": " + r.row->why) == whys.end())
            whys.push_back(r.row->experiment + ": " + r.row->why);
    for (const std::string& why : whys)
        out += "known miss, " + why + "\n";
    return out;
}

std::string format_reproduce_json(const ReproduceInfo& info, const std::vector<RowResult>& rows) {
    ojson j;
    j["blksim_reproduce"] = 1;
    j["data"] = info.data_file;
    j["source"] = info.source;
    j["seeds"] = info.seeds;
    j["reduced"] = info.reduced;
    j["rows"] = ojson::array();
    for (const RowResult& r : rows) {
        const PublishedRow& p = *r.row;
        ojson o;
        o["experiment"] = p.experiment;
        o["cell"] = p.cell;
        o["section"] = p.section;
        o["scenario"] = p.run.scenario;
        o["sets"] = p.run.sets;
        if (p.ratio_to)
            o["ratio_to"] = {{"scenario", p.ratio_to->scenario}, {"sets", p.ratio_to->sets}};
        o["metric"] = p.metric;
        o["unit"] = p.ratio_to ? "ratio" : p.unit;
        o["published"] = p.held_back ? ojson() : ojson(p.published);
        o["mean"] = r.mean;
        o["ci_half_width"] = r.half_width;
        o["values"] = r.values;
        o["error_pct"] = p.held_back ? ojson() : ojson(r.error_pct);
        o["tolerance"] = p.held_back ? ojson() : ojson(tolerance_text(p.tolerance));
        o["within"] = r.within;
        o["expect"] = p.hypothesis ? "hypothesis" : p.known_miss ? "known_miss" : "pass";
        o["status"] = row_status_name(r.status);
        if (p.known_miss || p.hypothesis)
            o["why"] = p.why;
        j["rows"].push_back(std::move(o));
    }
    const StatusCounts n = count_statuses(rows);
    j["summary"] = {{"ok", n[RowStatus::OK]},
                    {"fail", n[RowStatus::FAIL]},
                    {"known_miss", n[RowStatus::KNOWN_MISS]},
                    {"known_miss_now_within", n[RowStatus::KNOWN_MISS_NOW_WITHIN]},
                    {"hypothesis_within", n[RowStatus::HYPOTHESIS_WITHIN]},
                    {"hypothesis_outside", n[RowStatus::HYPOTHESIS_OUTSIDE]},
                    {"predicted", n[RowStatus::PREDICTED]}};
    return j.dump(2) + "\n";
}

}  // namespace blksim::experiment
