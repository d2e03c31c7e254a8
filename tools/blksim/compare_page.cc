#include "tools/blksim/compare_page.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "models/report/fio_format.h"
#include "tools/blksim/html_page.h"
#include "tools/experiment/simulate.h"

namespace blksim::cli {

namespace {

using experiment::CompareRow;

constexpr std::string_view COLOR_A = "#1f77b4", COLOR_B = "#d62728";

std::string ns_text(double ns) {
    if (ns >= 1e9)
        return fmt::format("{:g} s", ns / 1e9);
    if (ns >= 1e6)
        return fmt::format("{:g} ms", ns / 1e6);
    if (ns >= 1e3)
        return fmt::format("{:g} µs", ns / 1e3);
    return fmt::format("{:g} ns", ns);
}

// (latency ns, cumulative fraction) along a curve: the exact minimum at 0, percentiles of
// the merged histogram kept within [min, max], the exact maximum at 1.
std::vector<std::pair<double, double>> cdf_points(const ClatCurve& c) {
    std::vector<double> plist = {0.1};
    for (int p = 1; p <= 99; ++p)
        plist.push_back(p);
    for (const double p : {99.5, 99.9, 99.99})
        plist.push_back(p);
    const std::vector<uint64_t> v = c.hist.percentiles_within(plist, c.min, c.max);
    std::vector<std::pair<double, double>> pts = {{static_cast<double>(c.min), 0.0}};
    for (std::size_t i = 0; i < v.size(); ++i)
        pts.emplace_back(static_cast<double>(v[i]), plist[i] / 100.0);
    pts.emplace_back(static_cast<double>(c.max), 1.0);
    return pts;
}

// One CDF chart of a label's curves in A and B (either may be missing), log latency axis.
std::string cdf_svg(const ClatCurve* a, const ClatCurve* b, const std::string& name_a, const std::string& name_b) {
    constexpr double W = 500, H = 280, L = 48, R = 30, T = 12, B = 40;
    double lo = 1e300, hi = 1.0;
    for (const ClatCurve* c : {a, b})
        if (c) {
            lo = std::min(lo, static_cast<double>(std::max<uint64_t>(c->min, 1)));
            hi = std::max(hi, static_cast<double>(c->max));
        }
    const double x0 = std::floor(std::log10(lo)), x1 = std::max(x0 + 1, std::ceil(std::log10(hi)));
    auto px = [&](double ns) { return L + (std::log10(std::max(ns, 1.0)) - x0) / (x1 - x0) * (W - L - R); };
    auto py = [&](double f) { return T + (1.0 - f) * (H - T - B); };
    std::string s = fmt::format("<svg width=\"{0}\" height=\"{1}\" "
                                "viewBox=\"0 0 {0} {1}\" font-size=\"11\" font-family=\"sans-serif\">\n",
                                W, H);
    for (double e = x0; e <= x1; ++e)
        s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#ddd\"/>"
                         "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
                         px(std::pow(10.0, e)), T, H - B, H - B + 14, ns_text(std::pow(10.0, e)));
    for (const double f : {0.0, 0.25, 0.5, 0.75, 0.9, 1.0})
        s += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"#ddd\"/>"
                         "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:g}</text>\n",
                         L, py(f), W - R, L - 4, py(f) + 4, f);
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">completion latency (log scale)</text>\n",
                     (L + W - R) / 2, H - 6);
    const std::array<std::pair<const ClatCurve*, std::string_view>, 2> curves = {{{a, COLOR_A}, {b, COLOR_B}}};
    for (std::size_t k = 0; k < curves.size(); ++k) {
        const auto& [c, color] = curves[k];
        if (!c)
            continue;
        std::string points;
        for (const auto& [ns, f] : cdf_points(*c))
            points += fmt::format("{:.1f},{:.1f} ", px(ns), py(f));
        s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\" points=\"{}\"/>\n", color, points);
        s += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>\n", L + 8, T + 14 + 14 * k, color,
                         html_escape(k == 0 ? name_a : name_b));
    }
    return s + "</svg>\n";
}

// Each metric's relative change B - A with its interval, in percent of A's mean.
std::string forest_svg(const std::vector<CompareRow>& rows) {
    constexpr double W = 1000, LABEL = 300, R = 120, ROW = 16, T = 20;
    double range = 1.0;
    for (const CompareRow& r : rows)
        if (r.ci.mean_a != 0.0)
            range = std::max({range, std::fabs(100.0 * r.ci.lo() / r.ci.mean_a),
                              std::fabs(100.0 * r.ci.hi() / r.ci.mean_a)});
    range = std::min(range, 100.0);  // beyond ±100 % the ends are clipped (the table has them)
    const double H = T + ROW * static_cast<double>(rows.size()) + 24;
    auto px = [&](double pct) { return LABEL + (std::clamp(pct, -range, range) + range) / (2 * range) * (W - LABEL - R); };
    std::string s = fmt::format("<svg width=\"{0}\" height=\"{1}\" "
                                "viewBox=\"0 0 {0} {1}\" font-size=\"11\" font-family=\"sans-serif\">\n",
                                W, H);
    for (const double f : {-1.0, -0.5, 0.0, 0.5, 1.0})
        s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"{3}\"/>"
                         "<text x=\"{0:.1f}\" y=\"{4}\" text-anchor=\"middle\">{5:+.3g}%</text>\n",
                         px(f * range), T - 6, H - 20, f == 0.0 ? "#888" : "#ddd", H - 6, f * range);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const CompareRow& r = rows[i];
        const double y = T + ROW * (static_cast<double>(i) + 0.5);
        s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", LABEL - 8, y + 4,
                         html_escape(r.key));
        if (r.ci.mean_a == 0.0) {
            s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" fill=\"#888\">A's mean is 0: no relative change</text>\n",
                             LABEL + 4, y + 4);
            continue;
        }
        const std::string_view color = r.verdict == experiment::Verdict::BETTER  ? "#2ca02c"
                                       : r.verdict == experiment::Verdict::WORSE ? "#d62728"
                                                                                 : "#777";
        s += fmt::format("<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"{}\" "
                         "stroke-width=\"2\"/><circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n",
                         px(100.0 * r.ci.lo() / r.ci.mean_a), y, px(100.0 * r.ci.hi() / r.ci.mean_a), y, color,
                         px(r.ci.rel_change_pct()), y, color);
        if (r.ci.zero_width())
            s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" fill=\"#a60\">zero-width CI</text>\n", W - R + 10,
                             y + 4);
    }
    return s + "</svg>\n";
}

const ClatCurve* find_curve(const std::vector<ClatCurve>& v, const std::string& label) {
    for (const ClatCurve& c : v)
        if (c.label == label)
            return &c;
    return nullptr;
}

}  // namespace

std::vector<ClatCurve> clat_curves(const result::RunResult& r) {
    static constexpr std::array<std::string_view, 2> DIRS = {"read", "write"};
    const std::vector<result::JobResult> groups = report::fio::thread_stats(r, true);
    const std::vector<std::string> names = experiment::group_names(groups);
    std::vector<ClatCurve> out;
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (unsigned d = 0; d < result::DDIR_RWDIR_CNT; ++d) {
            const result::DirResult& dr = groups[g].dir[d];
            if (dr.total_ios == 0)
                continue;
            const std::string label = fmt::format("{}/{}", names[g], DIRS[d]);
            out.push_back({label, dr.clat_hist, static_cast<uint64_t>(dr.clat.min()),
                           static_cast<uint64_t>(dr.clat.max())});
            for (const result::PrioResult& p : dr.prios)
                if (p.clat.count() > 0)
                    out.push_back({fmt::format("{} prio {}/{}", label, p.ioprio_class, p.ioprio_level), p.clat_hist,
                                   static_cast<uint64_t>(p.clat.min()), static_cast<uint64_t>(p.clat.max())});
        }
    return out;
}

void merge_curves(std::vector<ClatCurve>& into, const std::vector<ClatCurve>& run) {
    for (const ClatCurve& c : run) {
        auto it = std::find_if(into.begin(), into.end(), [&](const ClatCurve& x) { return x.label == c.label; });
        if (it == into.end()) {
            into.push_back(c);
            continue;
        }
        it->hist.merge(c.hist);
        it->min = std::min(it->min, c.min);
        it->max = std::max(it->max, c.max);
    }
}

std::string compare_page(const experiment::CompareInfo& info, const std::vector<CompareRow>& rows,
                         const std::vector<ClatCurve>& a, const std::vector<ClatCurve>& b) {
    const std::string name_a = experiment::variant_label("A", info.name_a);
    const std::string name_b = experiment::variant_label("B", info.name_b);
    HtmlPage page(fmt::format("blksim compare: {} vs {}", name_a, name_b));
    page.paragraph(experiment::compare_summary(info));
    page.table({"variant", "what runs"}, {{name_a, experiment::variant_text(info.scenario_a, info.sets_a)},
                                          {name_b, experiment::variant_text(info.scenario_b, info.sets_b)}});

    page.heading("Completion latency, A and B side by side");
    page.paragraph(fmt::format("Each chart: one job group and direction, or one I/O priority of it (fio's clat "
                               "prio), all {} replications of a variant merged; percentiles of fio's histogram "
                               "within the exact minimum and maximum. {} in blue, {} in red.",
                               info.seeds_a.size(), name_a, name_b));
    std::vector<std::string> labels;
    for (const std::vector<ClatCurve>* v : {&a, &b})
        for (const ClatCurve& c : *v)
            if (std::find(labels.begin(), labels.end(), c.label) == labels.end())
                labels.push_back(c.label);
    std::string charts = "<div style=\"display:flex;flex-wrap:wrap;gap:1em\">\n";
    for (const std::string& label : labels)
        charts += fmt::format("<figure>{}<figcaption>{}</figcaption></figure>\n",
                              cdf_svg(find_curve(a, label), find_curve(b, label), name_a, name_b), html_escape(label));
    page.raw(charts + "</div>\n");

    page.heading("Differences B - A with their confidence intervals");
    page.paragraph(fmt::format("Relative to A's mean; green: B better, red: B worse, grey: no significant "
                               "difference ({:g} % paired t intervals).",
                               info.confidence * 100.0));
    page.raw(forest_svg(rows));
    std::vector<std::string> zero;
    for (const CompareRow& r : rows)
        if (r.ci.zero_width())
            zero.push_back(r.key);
    if (!zero.empty())
        page.paragraph(fmt::format("Zero-width intervals (every pair differed by the same amount, as deterministic "
                                   "service times make it): {}. Their verdicts rest on no variation.",
                                   fmt::join(zero, ", ")));
    std::vector<std::vector<std::string>> table = experiment::compare_table(rows);
    const std::vector<std::string> head = table.front();
    table.erase(table.begin());
    page.table(head, table);
    return page.str();
}

}  // namespace blksim::cli
