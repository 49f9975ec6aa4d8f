// What `rkt serve` and its clients say to each other: JSON lines over a Unix socket, one request
// a line in, and for each request its records, then one closing line, out (Bazel's persistent
// workers and clangd answer the same way: each answer carries its request's id).
//
//   in:  {"id": "7", "file": "/path/cand.cu", "task": "relu", "timeout": 60}
//        {"id": "8", "source": "<the .cu text>", "name": "cand.cu"}
//        {"id": "9", "op": "ping"}
//   out: {"id": "7", "record": {<the record rkt eval --json prints>}}   one per kernel
//        {"id": "7", "done": true, "records": 1, "verdict": "pass", "seconds": 3.2,
//         "queued_seconds": 0.0}
//        {"id": "9", "pong": true, "queued": 0}
//        {"id": null, "error": "line 1 is not JSON: ..."}                 a bad request
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "framework/eval/eval_options.h"
#include "framework/eval/eval_record.h"

namespace rkt {

/// One request, as parsed.
struct ServeRequest {
  std::string id;           ///< echoed in every answer (the client's; "" when it gave none)
  bool ping = false;        ///< {"op": "ping"}: answered at once, judges nothing
  std::string file;         ///< a source file on the server's machine
  std::string source_text;  ///< or the source itself ...
  std::string source_name;  ///< ... with its file name ("cand.cu": a kernel source, kernel_source.h, no folder)
  std::string task;         ///< only this task's kernels ("" = all)
  int case_timeout_seconds = 0;       ///< "timeout" (0: the server's)
  int benchmark_timeout_seconds = 0;  ///< "benchmark_timeout"
  int file_timeout_seconds = 0;       ///< "file_timeout"
  bool allow_declarations = false;    ///< honoured only by a server started with them allowed
};

/// The longest request line the server reads: a source of the largest size rkt eval takes,
/// escaped as JSON text, with room to spare.
inline constexpr std::size_t kMaxRequestLineBytes = 8u << 20;  // [bytes]

/// Parses one request line. Throws std::invalid_argument naming what is wrong (not JSON, an
/// unknown field, a field of the wrong type, neither or both of "file" and "source", ...); `id`
/// gets the request's id when the line had one, so that the error can carry it.
ServeRequest parse_serve_request(const std::string& line, std::string& id);

/// The request that judges `file` (an absolute path) with `options`' task, time limits and
/// declarations: what `rkt eval --server` sends for each file.
std::string serve_judge_request_line(const std::string& id, const std::string& file, const EvalOptions& options);

/// {"id": ID, "record": RECORD}
std::string serve_record_line(const std::string& id, const EvalRecord& record);
/// {"id": ID, "done": true, ...}: the request's last line.
std::string serve_done_line(const std::string& id, std::size_t records, const std::string& verdict,
                            double seconds, double queued_seconds);
/// {"id": ID or null, "error": MESSAGE}: a request that was not judged, and why.
std::string serve_error_line(const std::string& id, const std::string& message);
/// {"id": ID, "pong": true, "queued": N}
std::string serve_pong_line(const std::string& id, std::size_t queued);

}  // namespace rkt
