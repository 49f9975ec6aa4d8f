// `rkt serve`: a long-lived judge on a local Unix socket for generation loops and RL rewards,
// which judge kernels one file at a time by the thousand. A thin loop over what `rkt eval` uses:
// each request's file is compiled into the same library cache (library_compiler.h) and judged by
// the same child judge (library_judge.h), so that it gets the same records as `rkt eval --json`
// (serve_protocol.h says the lines). A kernel that crashes or hangs ends in its file's child
// judge, never in the server; a bad request gets an error line; a client that goes away loses
// its queued requests, not the server. Requests wait in a fair queue (fair_queue.h): one judge
// per GPU for .cu files, one for .cpp files (CPU timings must not share their cores with each
// other). Secrets (RKT_SECRET_SEED, RKT_HIDDEN_SUITE) stay in the server's environment, which
// the child judges inherit; no request can read or set them.
#pragma once

#include <string>
#include <vector>

#include "framework/eval/eval_options.h"

namespace rkt {

struct ServeOptions {
  std::string socket_path;  ///< --socket: the Unix socket it listens on (made 0600)
  /// The out folder (--out), time limits, --allow-declarations, the judge and worker to use.
  EvalOptions eval;
};

/// Serves until killed (SIGINT, SIGTERM and SIGHUP end the running child judges too). Returns
/// 2 when it cannot listen (a bad path, another server on the socket, an unwritable folder).
int run_judge_server(const ServeOptions& options);

/// `rkt serve ...` from the command line.
int run_serve_command(const std::vector<std::string>& args, const std::string& judge,
                      const std::string& worker);

}  // namespace rkt
