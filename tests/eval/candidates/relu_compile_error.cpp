// Does not compile: an undeclared name. Must get status compile_error with the compiler's error.
#include "rkt/kernel.h"

namespace {

void relu_typo(rkt::KernelCall& call) {
  float* y = call.output(0).data_as<float>();
  y[0] = undeclared_value;
}

}  // namespace

ROBUST_KERNEL_TEST(relu, eval_compile_error, relu_typo);
