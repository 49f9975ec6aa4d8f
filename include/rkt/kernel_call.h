// What a kernel receives when the framework calls it: its inputs, its preallocated outputs and,
// for CUDA kernels, the stream it must launch on.
#pragma once

#include <cstddef>
#include <vector>

#include "rkt/tensor_view.h"

namespace rkt {

namespace detail {
struct TorchKernelIO;  // Used by tensor-form kernels (rkt/torch_kernel.h); opaque here.
}

/// The arguments of one kernel invocation.
///
/// Inputs are read-only and follow the task's input order. Outputs are allocated by the framework
/// with the shapes and dtypes of the task's reference and filled with a poison pattern (NaN for
/// floating types): the kernel must write every element. A CUDA kernel must launch all of its
/// work on `cuda_stream()`; results are read back through that stream and nothing else.
class KernelCall {
 public:
  KernelCall(std::vector<TensorView> inputs, std::vector<TensorView> outputs, void* cuda_stream,
             detail::TorchKernelIO* torch_io = nullptr)
      : inputs_(std::move(inputs)),
        outputs_(std::move(outputs)),
        cuda_stream_(cuda_stream),
        torch_io_(torch_io) {}

  std::size_t num_inputs() const { return inputs_.size(); }
  std::size_t num_outputs() const { return outputs_.size(); }
  const TensorView& input(std::size_t index) const { return inputs_.at(index); }
  const TensorView& output(std::size_t index) const { return outputs_.at(index); }

  /// The `cudaStream_t` to launch on, as a `void*` so that this header needs no CUDA headers.
  void* cuda_stream() const { return cuda_stream_; }

  detail::TorchKernelIO* torch_io() const { return torch_io_; }

 private:
  std::vector<TensorView> inputs_;
  std::vector<TensorView> outputs_;
  void* cuda_stream_ = nullptr;
  detail::TorchKernelIO* torch_io_ = nullptr;
};

}  // namespace rkt
