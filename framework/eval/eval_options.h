// What one `rkt eval` call (or one `rkt serve` request) is asked to do: the options every part of
// the evaluation reads (the batch in eval_job.h, the child judges in library_judge.h, the server
// in framework/serve/).
#pragma once

#include <string>
#include <vector>

namespace rkt {

struct EvalOptions {
  std::vector<std::string> sources;
  std::string task;              ///< --task: only kernels of this task are judged ("" = all)
  std::string output_directory;  ///< --out (default runs/eval-<UTC time>)
  bool json = false;             ///< --json: one record per kernel on stdout, progress on stderr
  int jobs = 0;                  ///< --jobs: compilers at a time (0: the core count)
  /// --judges-per-gpu: CUDA files judged at once on each GPU (0: judges_per_gpu_by_default()).
  int judges_per_gpu = 0;
  int case_timeout_seconds = 0;       ///< --timeout, passed to each child judge (0: its default)
  int benchmark_timeout_seconds = 0;  ///< --benchmark-timeout, likewise
  int file_timeout_seconds = 0;  ///< --file-timeout: one file's judge in all (0: kFileTimeoutSeconds)
  /// --allow-declarations: judge files that waive a gate, allow an operator or narrow their
  /// task's domain (refused by default: status declaration_refused; declaration_policy.h).
  bool allow_declarations = false;
  /// --recheck K: the K fastest passing kernels judged again, with a fresh secret seed, in fresh
  /// processes (recheck.h); a disagreement fails the kernel.
  int recheck = 0;
  /// --server SOCKET: the files are judged by the `rkt serve` listening there (serve_client.h).
  std::string server;
  std::string judge;             ///< this executable (the child judges run it)
  std::string worker;            ///< its rkt-worker (an installed judge's prefix comes from it)
};

}  // namespace rkt
