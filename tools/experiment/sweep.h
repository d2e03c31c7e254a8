// `blksim sweep`: a parameter matrix over scenario paths, its points, shards, and the CSV /
// JSON files a sweep writes and `blksim sweep-merge` reads back (docs/sweep.md).
//
// Determinism: a point's index depends only on the parameters, and every output is written
// from the results sorted by index with one formatter, so the same inputs give byte-identical
// files whatever the thread count, and merged shards give the unsharded files.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/experiment/simulate.h"

namespace blksim::experiment {

// Bad --param / --shard / input file: the message names what was wrong and what is allowed.
class SweepError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// One --param: a scenario path (as --set takes it) and its values, as text (each becomes
// "path=value", so a value is JSON if it parses as JSON, else a string).
struct SweepParam {
    std::string path;
    std::vector<std::string> values;
};
// "path=v1,v2,..." or "path=[JSON array]" (for values that contain commas: ["4k,8k","16k"]).
SweepParam parse_param(const std::string& spec);

// --shard i/N: this process runs the points whose index % N == i.
struct Shard {
    std::size_t index = 0, count = 1;
    bool active() const { return count > 1; }
    bool owns(std::size_t point) const { return point % count == index; }
};
Shard parse_shard(const std::string& spec);

// The cartesian product, first --param slowest (as nested loops in command-line order).
std::size_t point_count(const std::vector<SweepParam>& params);
// What a sweep keeps per point of its shard until the end: the point's index, order and cost
// slots and its figures. Measured: 0.55-0.6 KiB (maximum RSS of a sweep of 3,000 points of a
// one-job scenario minus that of 200 points); 1 KiB leaves room for a second direction.
inline constexpr std::size_t SWEEP_POINT_BYTES = 1024;
// Point i's value index into each parameter's values.
std::vector<std::size_t> point_coords(const std::vector<SweepParam>& params, std::size_t i);
// Point i's overrides "path=value", one per parameter.
std::vector<std::string> point_sets(const std::vector<SweepParam>& params, std::size_t i);

struct PointResult {
    std::size_t index = 0;
    std::vector<Metric> metrics;
};

// A point whose simulation failed: SimOutcome's status and error.
struct FailedPoint {
    std::size_t index = 0;
    int status = 0;
    std::string error;
};

// A point's replications (sweep --runs N, N >= 2) as its figures: per metric that every
// replication has, in the first's order, the mean ("<key>") and the bounds of its Student-t
// confidence interval ("<key>.ci_low", "<key>.ci_high").
std::vector<Metric> replication_summary(const std::vector<std::vector<Metric>>& reps, double confidence = 0.95);

// What a sweep run (or a shard of it) produced, and what identifies the sweep.
struct SweepOutput {
    std::string scenario;               // as given on the command line
    std::vector<std::string> sets;      // the common --set overrides
    std::vector<SweepParam> params;
    Shard shard;                        // {0, 1} for an unsharded (or merged) sweep
    unsigned runs = 1;                  // replications per point (--runs)
    std::vector<PointResult> results;   // this shard's points, by index
    // An incomplete sweep: its failed points, the points it did not run (it was stopped by
    // a signal, named in `interrupted`), by index.
    std::vector<FailedPoint> failed;
    std::vector<std::size_t> missing;
    std::string interrupted;            // "SIGINT", "SIGTERM" or ""
    bool complete() const { return failed.empty() && missing.empty(); }
};

// One row per point: "point", one column per parameter (the path), then every metric key
// seen in any point (in order of first appearance, by point index); a missing figure is an
// empty cell. Fields with ',', '"' or a newline are quoted as RFC 4180 says. An incomplete
// sweep ends with comment lines after the rows ("# incomplete: ...", "# missing points: ...",
// "# failed point N (...): error"), which pandas (comment='#') and R (comment.char='#')
// skip and any other reader sees as a malformed last row, never as a complete file.
std::string to_csv(const SweepOutput& o);
// Self-describing, and what sweep-merge reads: scenario, sets, params, the total number of
// points, "runs" when more than 1, "shard" when sharded, and per point its index, values and metrics. An incomplete
// sweep has "incomplete": true, "interrupted" (the signal, if one stopped it), "missing"
// (the points not run) and "failed" (point, values, status, error) before its results.
std::string to_json(const SweepOutput& o);
// Reads to_json's output; `name` names the input in errors. An incomplete sweep is an error.
SweepOutput from_json(const std::string& text, const std::string& name);
// The shards of one sweep (same scenario, sets, params and shard count; each shard once)
// as the unsharded sweep: every point present exactly once.
SweepOutput merge_shards(const std::vector<SweepOutput>& shards, const std::vector<std::string>& names);

}  // namespace blksim::experiment
