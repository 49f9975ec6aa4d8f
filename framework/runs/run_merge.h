// `rkt merge --out DIR RUN...`: the shards of one sharded run (`rkt run --shard I/N`) combined
// into one run folder, as if one machine had run them all.
//
// It refuses (with the reason) anything that would make the combined report lie: a run that is
// not a shard or did not finish, shards of different runs (seed, hidden inputs, isolation mode,
// --kernel selection, shard count or schema differ), a shard given twice or missing, a kernel in
// two shards, a device measured on different device models, or fewer kernels than the run
// selected. Kernels are listed in id order (the order an unsharded run uses); the start time is
// the earliest shard's; each device's measured peaks are those of the first shard that used it.
#pragma once

#include <string>
#include <vector>

#include "framework/runs/run_report.h"

namespace rkt {

/// The combined report. `labels` name the shards in messages (their paths). Throws
/// std::invalid_argument with the reason when the shards cannot be merged.
RunReport merge_shards(const std::vector<RunReport>& shards, const std::vector<std::string>& labels);

/// The subcommand: 0 merged (the merged run has no failure), 1 merged with failing kernels,
/// 2 usage error or refused (message on stderr).
int run_merge_command(const std::vector<std::string>& args);

}  // namespace rkt
