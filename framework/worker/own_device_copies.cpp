#include "framework/worker/own_device_copies.h"

#include <stdexcept>
#include <string>

#if RKT_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace rkt {
namespace {
#if RKT_WITH_CUDA

// [bytes] From the first element to the last one a view's strides reach, inclusive.
std::size_t span_bytes(const TensorView& view) {
  std::int64_t last = 0;
  for (int d = 0; d < view.rank; ++d) {
    if (view.sizes[d] == 0) return 0;
    last += (view.sizes[d] - 1) * view.strides[d];
  }
  return static_cast<std::size_t>(last + 1) * element_size(view.dtype);
}

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) {
    throw std::runtime_error(std::string("the worker's own copy of an argument: ") + what + ": " +
                             cudaGetErrorString(status));
  }
}
#endif

}  // namespace

OwnDeviceCopies::OwnDeviceCopies(CallArguments& arguments) {
#if RKT_WITH_CUDA
  const auto copy_in = [](std::vector<TensorView>& views, std::vector<Copy>& copies) {
    for (TensorView& view : views) {
      if (view.device != Device::cuda) continue;
      Copy copy{view.data, nullptr, span_bytes(view)};
      if (copy.bytes > 0) {
        check(cudaMalloc(&copy.own, copy.bytes), "cudaMalloc");
        copies.push_back(copy);
        check(cudaMemcpy(copy.own, copy.shared, copy.bytes, cudaMemcpyDeviceToDevice),
              "cudaMemcpy in");
        view.data = copy.own;
      }
    }
  };
  try {
    copy_in(arguments.inputs, inputs_);
    copy_in(arguments.outputs, outputs_);
    // A copy between device buffers does not wait for itself to finish, and the kernel's stream
    // (non-blocking) does not wait for the legacy stream it ran on.
    check(cudaDeviceSynchronize(), "the copies in");
  } catch (...) {
    free_copies();
    throw;
  }
#else
  (void)arguments;
#endif
}

OwnDeviceCopies::~OwnDeviceCopies() { free_copies(); }

void OwnDeviceCopies::free_copies() {
#if RKT_WITH_CUDA
  for (std::vector<Copy>* copies : {&inputs_, &outputs_}) {
    for (Copy& copy : *copies) {
      if (copy.own != nullptr) cudaFree(copy.own);
      copy.own = nullptr;
    }
  }
#endif
}

void OwnDeviceCopies::copy_outputs_back() const {
#if RKT_WITH_CUDA
  check(cudaDeviceSynchronize(), "the call");
  for (const Copy& copy : outputs_) {
    check(cudaMemcpy(copy.shared, copy.own, copy.bytes, cudaMemcpyDeviceToDevice),
          "cudaMemcpy back");
  }
  check(cudaDeviceSynchronize(), "the copies back");  // before the reply lets the judge read them
#endif
}

}  // namespace rkt
