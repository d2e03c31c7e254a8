// `blksim sweep --slurm DIR`: the sweep as Slurm batch jobs instead of a run. DIR gets
// sweep.sbatch (a job array, one task per shard: `blksim sweep --shard $SLURM_ARRAY_TASK_ID/N`),
// merge.sbatch (`blksim sweep-merge` of the N shards) and submit.sh, which queues the array
// and then the merge with --dependency=afterok on it (docs/sweep.md).
#pragma once

#include <cstddef>

namespace blksim::cli {

struct SweepOptions;

// Writes the three files for a sweep of `points` points whose inputs were checked; 0, or 2
// after saying what is wrong. Throws OutputError.
int write_slurm_jobs(const SweepOptions& o, std::size_t points);

}  // namespace blksim::cli
