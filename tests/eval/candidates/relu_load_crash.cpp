// Crashes while a worker loads its library: a static initializer writes to address 8, before any
// case runs. Must get status load_error naming the signal, and touch no other file's verdict.
#include <cstdint>

#include "rkt/kernel.h"

namespace {

int crash_at_load() {
  *reinterpret_cast<volatile int*>(std::uintptr_t{8}) = 1;
  return 1;
}
[[maybe_unused]] const int loaded = crash_at_load();

void relu_never_called(rkt::KernelCall&) {}

}  // namespace

ROBUST_KERNEL_TEST(relu, eval_load_crash, relu_never_called);
