#include "tools/experiment/compare.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace blksim::experiment {

const char* verdict_name(Verdict v) {
    switch (v) {
    case Verdict::BETTER: return "better";
    case Verdict::WORSE: return "worse";
    case Verdict::NO_DIFFERENCE: break;
    }
    return "no significant difference";
}

namespace {

const Metric* find(const std::vector<Metric>& ms, const std::string& key) {
    for (const Metric& m : ms)
        if (m.key == key)
            return &m;
    return nullptr;
}

// Readable without exponents: latencies in ns are large, IOPS small.
std::string value(double v) {
    const double a = std::fabs(v);
    if (a >= 100000.0)
        return fmt::format("{:.0f}", v);
    if (a >= 100.0 || a == 0.0)
        return fmt::format("{:.1f}", v);
    if (a >= 1.0)
        return fmt::format("{:.3f}", v);
    return fmt::format("{:.4g}", v);
}

std::string seeds_text(const std::vector<uint64_t>& s) {
    if (s.empty())
        return "";
    bool contiguous = true;
    for (std::size_t i = 1; i < s.size(); ++i)
        contiguous = contiguous && s[i] == s[0] + i;
    if (contiguous)
        return s.size() == 1 ? fmt::format("{}", s[0]) : fmt::format("{}..{}", s.front(), s.back());
    return fmt::format("{}", fmt::join(s, ","));
}

}  // namespace

std::string variant_text(const std::string& scenario, const std::vector<std::string>& sets) {
    if (sets.empty())
        return scenario;
    // A fio command line ("--device D -- <fio args>"): the overrides as the options they are,
    // before fio's arguments.
    if (const auto fio = scenario.find(" -- "); scenario.starts_with("--device ") && fio != std::string::npos)
        return fmt::format("{} --set {}{}", scenario.substr(0, fio), fmt::join(sets, " --set "), scenario.substr(fio));
    return fmt::format("{} {}", scenario, fmt::join(sets, " "));
}

std::vector<CompareRow> compare_runs(const std::vector<std::vector<Metric>>& a,
                                     const std::vector<std::vector<Metric>>& b, double confidence) {
    std::vector<CompareRow> rows;
    if (a.empty() || a.size() != b.size())
        return rows;
    for (const Metric& m : a.front()) {
        std::vector<double> va, vb;
        for (std::size_t i = 0; i < a.size(); ++i) {
            const Metric* x = find(a[i], m.key);
            const Metric* y = find(b[i], m.key);
            if (!x || !y)
                break;
            va.push_back(x->value);
            vb.push_back(y->value);
        }
        if (va.size() != a.size())
            continue;
        CompareRow r;
        r.key = m.key;
        r.higher_is_better = higher_is_better(m.key);
        r.ci = paired_ci(va, vb, confidence);
        if (r.ci.significant())
            r.verdict = (r.ci.diff > 0) == r.higher_is_better ? Verdict::BETTER : Verdict::WORSE;
        rows.push_back(std::move(r));
    }
    return rows;
}

FailOn parse_fail_on(const std::string& spec) {
    const auto colon = spec.rfind(':');
    FailOn f;
    f.spec = spec;
    bool ok = colon != std::string::npos && colon > 0;
    if (ok) {
        f.metric = spec.substr(0, colon);
        const std::string pct = spec.substr(colon + 1);
        const char* end = pct.data() + pct.size();
        const auto r = std::from_chars(pct.data(), end, f.pct);
        ok = !pct.empty() && r.ec == std::errc{} && r.ptr == end && f.pct >= 0.0 && std::isfinite(f.pct);
    }
    const auto slash = f.metric.rfind('/');
    if (ok)
        ok = is_metric_suffix(slash == std::string::npos ? f.metric : f.metric.substr(slash + 1));
    if (!ok)
        throw std::invalid_argument(fmt::format(
            "--fail-on '{}': expected METRIC:PCT with PCT >= 0 (percent) and METRIC one of {} "
            "(every job group's), or GROUP/METRIC for one group, e.g. read.clat_p99_ns:5",
            spec, metric_suffixes()));
    return f;
}

bool matches(const FailOn& f, const std::string& key) {
    if (f.metric.find('/') != std::string::npos)
        return key == f.metric;
    return key.size() > f.metric.size() && key.compare(key.size() - f.metric.size(), f.metric.size(), f.metric) == 0 &&
           key[key.size() - f.metric.size() - 1] == '/';
}

bool fails(const FailOn& f, const CompareRow& row) {
    // From 0 in A (no lock wait, no tag sleeps) any significant worsening is beyond every PCT.
    return matches(f, row.key) && row.verdict == Verdict::WORSE &&
           (row.ci.mean_a == 0.0 || std::fabs(row.ci.rel_change_pct()) > f.pct);
}

std::string compare_summary(const CompareInfo& info) {
    return fmt::format(
        "compare: {} replications per variant, seeds {} (A) / {} (B){}, {:g} % confidence intervals of B - A",
        info.seeds_a.size(), seeds_text(info.seeds_a), seeds_text(info.seeds_b),
        info.crn ? ", common random numbers" : ", independent seeds (--no-crn)", info.confidence * 100.0);
}

std::string variant_label(const char* letter, const std::string& name) {
    return name == letter ? std::string(letter) : fmt::format("{} ({})", letter, name);
}

std::vector<std::vector<std::string>> compare_table(const std::vector<CompareRow>& rows) {
    std::vector<std::vector<std::string>> table{
        {"metric", "mean A", "mean B", "B - A", "CI low", "CI high", "change", "verdict"}};
    for (const CompareRow& r : rows)
        table.push_back({r.key, value(r.ci.mean_a), value(r.ci.mean_b), value(r.ci.diff), value(r.ci.lo()),
                         value(r.ci.hi()), fmt::format("{:+.2f}%", r.ci.rel_change_pct()), verdict_name(r.verdict)});
    return table;
}

std::string format_compare_normal(const CompareInfo& info, const std::vector<CompareRow>& rows,
                                  const std::vector<FailOnResult>& fails) {
    std::string out = compare_summary(info) + "\n";
    out += fmt::format("  {}: {}\n  {}: {}\n\n", variant_label("A", info.name_a),
                       variant_text(info.scenario_a, info.sets_a), variant_label("B", info.name_b),
                       variant_text(info.scenario_b, info.sets_b));
    const std::vector<std::vector<std::string>> table = compare_table(rows);
    const std::vector<std::string>& head = table.front();
    std::vector<std::size_t> w(head.size(), 0);
    for (const auto& row : table)
        for (std::size_t c = 0; c < row.size(); ++c)
            w[c] = std::max(w[c], row[c].size());
    for (const auto& row : table) {
        std::string line;
        for (std::size_t c = 0; c < row.size(); ++c) {
            // Names and verdicts left-aligned, numbers right-aligned.
            if (c == 0)
                line += fmt::format("{:<{}}", row[c], w[c]);
            else if (c + 1 == row.size())
                line += fmt::format("  {}", row[c]);
            else
                line += fmt::format("  {:>{}}", row[c], w[c]);
        }
        out += line + "\n";
    }
    if (rows.empty())
        out += "(no metric that every replication of both variants reports)\n";
    for (const FailOnResult& f : fails)
        out += f.failed_keys.empty()
                   ? fmt::format("\nfail-on {}: ok\n", f.rule.spec)
                   : fmt::format("\nfail-on {}: REGRESSION in {}\n", f.rule.spec, fmt::join(f.failed_keys, ", "));
    return out;
}

std::string format_compare_json(const CompareInfo& info, const std::vector<CompareRow>& rows,
                                const std::vector<FailOnResult>& fails) {
    using ojson = nlohmann::ordered_json;
    ojson j;
    j["runs"] = info.seeds_a.size();
    j["crn"] = info.crn;
    j["confidence"] = info.confidence;
    j["a"] = {{"name", info.name_a}, {"scenario", info.scenario_a}, {"sets", info.sets_a}, {"seeds", info.seeds_a}};
    j["b"] = {{"name", info.name_b}, {"scenario", info.scenario_b}, {"sets", info.sets_b}, {"seeds", info.seeds_b}};
    ojson ms = ojson::array();
    for (const CompareRow& r : rows)
        ms.push_back({{"metric", r.key},
                      {"higher_is_better", r.higher_is_better},
                      {"mean_a", r.ci.mean_a},
                      {"mean_b", r.ci.mean_b},
                      {"diff", r.ci.diff},
                      {"diff_sd", r.ci.diff_sd},
                      {"ci_low", r.ci.lo()},
                      {"ci_high", r.ci.hi()},
                      {"rel_change_pct", r.ci.rel_change_pct()},
                      {"significant", r.ci.significant()},
                      {"ci_zero_width", r.ci.zero_width()},
                      {"verdict", verdict_name(r.verdict)}});
    j["metrics"] = std::move(ms);
    ojson fo = ojson::array();
    bool failed = false;
    for (const FailOnResult& f : fails) {
        fo.push_back({{"rule", f.rule.spec}, {"failed", f.failed_keys}});
        failed = failed || !f.failed_keys.empty();
    }
    j["fail_on"] = std::move(fo);
    j["regression"] = failed;
    return j.dump(2) + "\n";
}

}  // namespace blksim::experiment
