// The kernels that have failed a case in this process, and the first case each failed. A kernel
// that failed one case fails whatever its others say, so work that only adds to that verdict may
// be cut short for it: its sanitizer case, running beside the others, which after an invalid
// access can stay silent until its limit while holding the GPU's lease (sanitizer_cases.cpp).
#pragma once

#include <string>

namespace rkt {

/// Records that case `case_name` of kernel `kernel_id` failed (its first failure is kept).
void note_failed_case(const std::string& kernel_id, const std::string& case_name);

/// The first case `kernel_id` failed in this process, or "" while it has failed none.
std::string first_failed_case(const std::string& kernel_id);

}  // namespace rkt
