// Ragged dims: the shapes where tail bugs show. A kernel that rounds its vector count up (float4
// loads past the end when numel % 4 != 0) or sizes its grid by a power of two reads outside its
// buffers only when a dim is off those granularities; at B=37 N=300 (numel 11100, a multiple of
// 4) such a kernel reads nothing outside. The sanitizer cases run at ragged dims, so memcheck,
// which judges each access against its exact-size allocation, sees the read past the end.
#pragma once

#include <vector>

#include "rkt/registration.h"
#include "rkt/task.h"

namespace rkt {

/// `dims` with every dim that has a domain in `task` moved to the nearest odd value that is not a
/// power of two, inside the task's domain and `restrictions` (a kernel's declared dims), so the
/// product of the dims is odd. A dim stays put where no such value lies near it (a declared
/// "N % 64 == 0" keeps N even: the nearest multiple of 64 that is not a power of two is taken).
Dims ragged_dims(const Dims& dims, const TaskSpec& task,
                 const std::vector<DimRestriction>& restrictions);

}  // namespace rkt
