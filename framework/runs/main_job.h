// `rkt run`: every kernel's cases under supervision, with a summary written as it goes.
#pragma once

#include <string>
#include <vector>

#include "framework/runs/run_sharding.h"

namespace rkt {

struct MainJobOptions {
  std::string executable;
  std::string output_directory;  ///< Default: runs/<UTC time>.
  /// --kernel, repeatable: only kernels whose full id contains one of these (none: all).
  std::vector<std::string> kernel_fragments;
  int case_timeout_seconds = 0;       ///< --timeout: a silent case is killed (0: the default).
  int benchmark_timeout_seconds = 0;  ///< --benchmark-timeout (0: kBenchmarkProcessTimeoutSeconds).
  ShardSpec shard;  ///< --shard I/N: only this shard's share of the selected kernels.
  /// --replace: a folder that already holds a run is emptied of it first. Without it such a
  /// folder is refused (exit 2), so that an earlier run is never overwritten by mistake.
  bool replace_existing = false;
};

/// Runs the job and returns the process exit code (0 when every kernel passed every case, 1
/// when one failed, 2 when the run folder cannot be created).
int run_main_job(const MainJobOptions& options);

}  // namespace rkt
