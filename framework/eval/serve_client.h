// `rkt eval --server SOCKET FILE...`: the files judged by a running `rkt serve` instead of child
// judges of this process. Every file is sent at once (the server queues them fairly), and the
// records print as `rkt eval` prints them: with --json the same record lines, one per kernel.
#pragma once

#include <string>

#include "framework/eval/eval_options.h"

namespace rkt {

/// Exit code as rkt eval's: 0 every kernel passed (or skipped), 1 a kernel failed or a file gave
/// none, 2 a file unusable (missing, empty, ...), a request refused or the server unreachable.
int run_eval_through_server(const std::string& socket_path, const EvalOptions& options);

}  // namespace rkt
