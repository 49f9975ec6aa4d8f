// `rkt template TASK [--device cuda|cpu]`: a kernel skeleton for a task that compiles as printed,
// the starting point for a new author (or a model in a generation loop) before `rkt eval`.
#pragma once

#include <string>

#include "rkt/task.h"

namespace rkt {

/// The source of a kernel file for `task` on `device`: a header comment with the task's inputs
/// (order, names, dtypes, symbolic dims), its outputs (dtypes and sizes at the test dims), its
/// dims and domains and the precision the kernel declares; a kernel function that reads every
/// input and output view and throws until its body is written (a skeleton must never pass by
/// accident); and the ROBUST_KERNEL_TEST line with `.precision(...)`.
std::string kernel_template(const TaskSpec& task, Device device);

}  // namespace rkt
