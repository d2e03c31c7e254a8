#include "tools/experiment/sweep.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "tools/experiment/stats.h"
#include "tools/input/nesting.h"

namespace blksim::experiment {

namespace {

using ojson = nlohmann::ordered_json;

std::string trim(std::string s) {
    const auto b = s.find_first_not_of(" \t");
    const auto e = s.find_last_not_of(" \t");
    return b == std::string::npos ? std::string{} : s.substr(b, e - b + 1);
}

bool parse_size(const std::string& s, std::size_t& out) {
    const char* end = s.data() + s.size();
    const auto r = std::from_chars(s.data(), end, out);
    return !s.empty() && r.ec == std::errc{} && r.ptr == end;
}

// Doubles as the shortest text that reads back to the same value, so that a figure read
// from a shard's JSON prints exactly as the unsharded run printed it.
std::string num(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "0"; }

std::string json_string(const std::string& s) { return ojson(s).dump(); }

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos)
        return s;
    std::string q = "\"";
    for (const char c : s) {
        if (c == '"')
            q += '"';
        q += c;
    }
    return q + '"';
}

// Metric columns: every key in order of first appearance over the points by index.
std::vector<std::string> metric_columns(const SweepOutput& o) {
    std::vector<std::string> cols;
    for (const PointResult& p : o.results)
        for (const Metric& m : p.metrics)
            if (std::find(cols.begin(), cols.end(), m.key) == cols.end())
                cols.push_back(m.key);
    return cols;
}

// A point's JSON object up to its values: `{"point": I, "values": [...]` (one per line).
std::string json_point(const SweepOutput& o, std::size_t index, bool comma) {
    std::string out = fmt::format("{}\n    {{\"point\": {}, \"values\": [", comma ? "," : "", index);
    const std::vector<std::size_t> c = point_coords(o.params, index);
    for (std::size_t k = 0; k < o.params.size(); ++k)
        out += (k ? ", " : "") + json_string(o.params[k].values[c[k]]);
    return out + "]";
}

}  // namespace

SweepParam parse_param(const std::string& spec) {
    const auto eq = spec.find('=');
    const std::string allowed =
        "allowed: PATH=V1,V2,... or PATH=[JSON array] with PATH a scenario path as --set takes it, "
        "e.g. jobs.0.iodepth=1,4,16";
    if (eq == std::string::npos || eq == 0)
        throw SweepError(fmt::format("--param '{}': no PATH=VALUES ({})", spec, allowed));
    SweepParam p;
    p.path = trim(spec.substr(0, eq));
    const std::string rest = trim(spec.substr(eq + 1));
    if (!rest.empty() && rest.front() == '[') {
        if (const auto deep = input::json_nesting_exceeded(rest))
            throw SweepError(fmt::format("--param '{}': {}", p.path, input::nesting_message(*deep)));
        const ojson arr = ojson::parse(rest, nullptr, false);
        if (arr.is_discarded() || !arr.is_array())
            throw SweepError(fmt::format("--param '{}': the values are not a JSON array ({})", spec, allowed));
        for (const ojson& v : arr)
            p.values.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    } else {
        std::size_t start = 0;
        while (true) {
            const auto comma = rest.find(',', start);
            p.values.push_back(trim(rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
            if (comma == std::string::npos)
                break;
            start = comma + 1;
        }
    }
    if (p.path.empty() || p.values.empty() ||
        std::any_of(p.values.begin(), p.values.end(), [](const std::string& v) { return v.empty(); }))
        throw SweepError(fmt::format("--param '{}': empty path or value ({})", spec, allowed));
    return p;
}

Shard parse_shard(const std::string& spec) {
    const auto slash = spec.find('/');
    Shard s;
    if (slash == std::string::npos || !parse_size(spec.substr(0, slash), s.index) ||
        !parse_size(spec.substr(slash + 1), s.count) || s.count == 0 || s.index >= s.count)
        throw SweepError(fmt::format("--shard '{}': expected I/N with 0 <= I < N, e.g. 0/4 "
                                     "(Slurm: --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)",
                                     spec));
    return s;
}

std::size_t point_count(const std::vector<SweepParam>& params) {
    std::size_t n = 1;
    for (const SweepParam& p : params) {
        if (n > std::numeric_limits<std::size_t>::max() / p.values.size())
            throw SweepError("--param: too many points");
        n *= p.values.size();
    }
    return n;
}

std::vector<std::size_t> point_coords(const std::vector<SweepParam>& params, std::size_t i) {
    std::vector<std::size_t> c(params.size());
    for (std::size_t k = params.size(); k-- > 0;) {
        c[k] = i % params[k].values.size();
        i /= params[k].values.size();
    }
    return c;
}

std::vector<std::string> point_sets(const std::vector<SweepParam>& params, std::size_t i) {
    const std::vector<std::size_t> c = point_coords(params, i);
    std::vector<std::string> sets;
    for (std::size_t k = 0; k < params.size(); ++k)
        sets.push_back(params[k].path + "=" + params[k].values[c[k]]);
    return sets;
}

std::string to_csv(const SweepOutput& o) {
    const std::vector<std::string> cols = metric_columns(o);
    std::string out = "point";
    for (const SweepParam& p : o.params)
        out += "," + csv_field(p.path);
    for (const std::string& c : cols)
        out += "," + csv_field(c);
    out += '\n';
    for (const PointResult& r : o.results) {
        out += fmt::format("{}", r.index);
        const std::vector<std::size_t> c = point_coords(o.params, r.index);
        for (std::size_t k = 0; k < o.params.size(); ++k)
            out += "," + csv_field(o.params[k].values[c[k]]);
        for (const std::string& col : cols) {
            out += ',';
            for (const Metric& m : r.metrics)
                if (m.key == col) {
                    out += num(m.value);
                    break;
                }
        }
        out += '\n';
    }
    if (o.complete())
        return out;
    const std::size_t ran = o.results.size() + o.failed.size();
    out += fmt::format("# incomplete: {} of {} points have no results ({} failed, {} not run{})\n",
                       o.failed.size() + o.missing.size(), ran + o.missing.size(), o.failed.size(),
                       o.missing.size(), o.interrupted.empty() ? "" : ": interrupted by " + o.interrupted);
    if (!o.missing.empty())
        out += fmt::format("# missing points: {}\n", fmt::join(o.missing, ","));
    for (const FailedPoint& f : o.failed) {
        std::string error = f.error;
        std::replace(error.begin(), error.end(), '\n', ' ');
        out += fmt::format("# failed point {} ({}): {}\n", f.index, fmt::join(point_sets(o.params, f.index), " "),
                           error);
    }
    return out;
}

std::vector<Metric> replication_summary(const std::vector<std::vector<Metric>>& reps, double confidence) {
    std::vector<Metric> out;
    if (reps.size() < 2)
        return out;
    for (const Metric& m : reps.front()) {
        std::vector<double> v;
        for (const std::vector<Metric>& r : reps) {
            const auto it = std::find_if(r.begin(), r.end(), [&](const Metric& x) { return x.key == m.key; });
            if (it == r.end())
                break;
            v.push_back(it->value);
        }
        if (v.size() != reps.size())
            continue;
        const MeanCi ci = mean_ci(v, confidence);
        out.push_back({m.key, ci.mean});
        out.push_back({m.key + ".ci_low", ci.mean - ci.half_width});
        out.push_back({m.key + ".ci_high", ci.mean + ci.half_width});
    }
    return out;
}

std::string to_json(const SweepOutput& o) {
    // Written by hand, one point per line, so that diffs of two sweeps read well.
    std::string out = "{\n  \"blksim_sweep\": 1,\n";
    out += fmt::format("  \"scenario\": {},\n  \"sets\": [", json_string(o.scenario));
    for (std::size_t i = 0; i < o.sets.size(); ++i)
        out += (i ? ", " : "") + json_string(o.sets[i]);
    out += "],\n  \"params\": [";
    for (std::size_t k = 0; k < o.params.size(); ++k) {
        out += fmt::format("{}\n    {{\"path\": {}, \"values\": [", k ? "," : "", json_string(o.params[k].path));
        for (std::size_t v = 0; v < o.params[k].values.size(); ++v)
            out += (v ? ", " : "") + json_string(o.params[k].values[v]);
        out += "]}";
    }
    out += fmt::format("{}],\n  \"points\": {},\n", o.params.empty() ? "" : "\n  ", point_count(o.params));
    if (o.runs > 1)
        out += fmt::format("  \"runs\": {},\n", o.runs);
    if (o.shard.active())
        out += fmt::format("  \"shard\": \"{}/{}\",\n", o.shard.index, o.shard.count);
    if (!o.complete()) {
        out += "  \"incomplete\": true,\n";
        if (!o.interrupted.empty())
            out += fmt::format("  \"interrupted\": {},\n", json_string(o.interrupted));
        out += fmt::format("  \"missing\": [{}],\n  \"failed\": [", fmt::join(o.missing, ", "));
        for (std::size_t f = 0; f < o.failed.size(); ++f) {
            const FailedPoint& p = o.failed[f];
            out += json_point(o, p.index, f > 0);
            out += fmt::format(", \"status\": {}, \"error\": {}}}", p.status, json_string(p.error));
        }
        out += fmt::format("{}],\n", o.failed.empty() ? "" : "\n  ");
    }
    out += "  \"results\": [";
    for (std::size_t r = 0; r < o.results.size(); ++r) {
        const PointResult& p = o.results[r];
        out += json_point(o, p.index, r > 0);
        out += ", \"metrics\": {";
        for (std::size_t m = 0; m < p.metrics.size(); ++m)
            out += fmt::format("{}{}: {}", m ? ", " : "", json_string(p.metrics[m].key), num(p.metrics[m].value));
        out += "}}";
    }
    out += fmt::format("{}]\n}}\n", o.results.empty() ? "" : "\n  ");
    return out;
}

SweepOutput from_json(const std::string& text, const std::string& name) {
    auto bad = [&](const std::string& what) {
        return SweepError(fmt::format("{}: not a blksim sweep JSON file ({})", name, what));
    };
    if (const auto deep = input::json_nesting_exceeded(text))
        throw bad(input::nesting_message(*deep));
    const ojson j = ojson::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw bad("not JSON");
    if (j.value("blksim_sweep", 0) != 1)
        throw bad("no \"blksim_sweep\": 1");
    if (j.contains("incomplete"))
        throw SweepError(fmt::format("{}: an incomplete sweep (its \"missing\" and \"failed\" points have no "
                                     "results): run it again to the end",
                                     name));
    SweepOutput o;
    try {
        o.scenario = j.at("scenario").get<std::string>();
        o.sets = j.at("sets").get<std::vector<std::string>>();
        for (const ojson& p : j.at("params"))
            o.params.push_back({p.at("path").get<std::string>(), p.at("values").get<std::vector<std::string>>()});
        if (j.contains("shard"))
            o.shard = parse_shard(j.at("shard").get<std::string>());
        o.runs = j.value("runs", 1u);
        if (o.runs == 0)
            throw bad("\"runs\" is 0");
        const std::size_t points = j.at("points").get<std::size_t>();
        if (points != point_count(o.params))
            throw bad("\"points\" does not match the params");
        for (const ojson& r : j.at("results")) {
            PointResult p;
            p.index = r.at("point").get<std::size_t>();
            if (p.index >= points || !o.shard.owns(p.index))
                throw bad(fmt::format("point {} does not belong to this sweep or shard", p.index));
            for (const auto& [k, v] : r.at("metrics").items())
                p.metrics.push_back({k, v.get<double>()});
            o.results.push_back(std::move(p));
        }
    } catch (const nlohmann::json::exception& e) {
        throw bad(e.what());
    }
    return o;
}

SweepOutput merge_shards(const std::vector<SweepOutput>& shards, const std::vector<std::string>& names) {
    if (shards.empty())
        throw SweepError("no input files");
    const SweepOutput& first = shards.front();
    SweepOutput m;
    m.scenario = first.scenario;
    m.sets = first.sets;
    m.params = first.params;
    m.runs = first.runs;
    auto same_params = [](const std::vector<SweepParam>& a, const std::vector<SweepParam>& b) {
        if (a.size() != b.size())
            return false;
        for (std::size_t k = 0; k < a.size(); ++k)
            if (a[k].path != b[k].path || a[k].values != b[k].values)
                return false;
        return true;
    };
    std::map<std::size_t, std::string> shard_seen;  // shard index -> file
    std::map<std::size_t, const PointResult*> by_point;
    for (std::size_t f = 0; f < shards.size(); ++f) {
        const SweepOutput& s = shards[f];
        if (s.scenario != first.scenario || s.sets != first.sets || !same_params(s.params, first.params) ||
            s.runs != first.runs)
            throw SweepError(fmt::format("{} is from another sweep than {} (scenario, --set, "
                                         "--param or --runs differ)",
                                         names[f], names[0]));
        if (s.shard.count != first.shard.count)
            throw SweepError(fmt::format("{} is shard {}/{} but {} is one of {} shards", names[f],
                                         s.shard.index, s.shard.count, names[0], first.shard.count));
        if (const auto [it, fresh] = shard_seen.emplace(s.shard.index, names[f]); !fresh)
            throw SweepError(fmt::format("{} and {} are both shard {}/{}", it->second, names[f],
                                         s.shard.index, s.shard.count));
        for (const PointResult& p : s.results)
            if (!by_point.emplace(p.index, &p).second)
                throw SweepError(fmt::format("point {} appears twice", p.index));
    }
    const std::size_t n = point_count(m.params);
    for (std::size_t i = 0; i < n; ++i) {
        const auto it = by_point.find(i);
        if (it == by_point.end()) {
            std::string missing;
            for (std::size_t k = 0; k < first.shard.count; ++k)
                if (!shard_seen.count(k))
                    missing += fmt::format("{}{}/{}", missing.empty() ? "" : ", ", k, first.shard.count);
            throw SweepError(fmt::format("point {} is missing{}", i,
                                         missing.empty() ? "" : " (shards not given: " + missing + ")"));
        }
        m.results.push_back(*it->second);
    }
    return m;
}

}  // namespace blksim::experiment
