// Tensor-form kernels: `at::Tensor f(const at::Tensor& x, ...)` takes the task's inputs in order
// and returns its output (or `std::vector<at::Tensor>` for several). Include this instead of
// rkt/kernel.h in a kernel file that uses LibTorch. Such a kernel allocates its own outputs, so
// the framework scrubs freed memory to catch outputs it never writes (see docs/threat_model.md).
#pragma once

#include <ATen/core/Tensor.h>

#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "rkt/kernel.h"

namespace rkt {
namespace detail {

/// The tensors a tensor-form kernel exchanges with the framework.
struct TorchKernelIO {
  std::vector<at::Tensor> inputs;
  std::vector<at::Tensor> outputs;
};

inline std::vector<at::Tensor> as_output_list(at::Tensor output) { return {std::move(output)}; }
inline std::vector<at::Tensor> as_output_list(std::vector<at::Tensor> outputs) { return outputs; }

template <typename Result, typename... Args, std::size_t... Index>
KernelAdapter adapt_tensor_kernel(Result (*function)(Args...), std::index_sequence<Index...>) {
  KernelFunction call = [function](KernelCall& kernel_call) {
    TorchKernelIO* io = kernel_call.torch_io();
    if (io == nullptr) throw std::logic_error("tensor-form kernel called without tensors");
    if (io->inputs.size() != sizeof...(Args)) {
      throw std::invalid_argument("the kernel takes " + std::to_string(sizeof...(Args)) +
                                  " tensors but the task has " +
                                  std::to_string(io->inputs.size()) + " inputs");
    }
    io->outputs = as_output_list(function(io->inputs[Index]...));
  };
  return {std::move(call), true};
}

}  // namespace detail

/// Tensor-form kernels: every parameter is an at::Tensor (by value or const reference); the
/// result is an at::Tensor or a std::vector<at::Tensor>.
template <typename Result, typename... Args,
          typename = std::enable_if_t<
              (std::is_same_v<std::decay_t<Args>, at::Tensor> && ...) &&
              (std::is_same_v<Result, at::Tensor> ||
               std::is_same_v<Result, std::vector<at::Tensor>>)>>
KernelAdapter to_kernel_function(Result (*function)(Args...)) {
  return detail::adapt_tensor_kernel(function, std::index_sequence_for<Args...>{});
}

}  // namespace rkt
