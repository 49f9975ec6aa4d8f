// Peak device memory one call adds above what is already allocated (its resident inputs).
#pragma once

#include <functional>

#include "rkt/tensor_view.h"

namespace rkt {

/// Peak bytes allocated through LibTorch's CUDA caching allocator during `call`, above what was
/// allocated before it; -1 on the CPU, where it is not measured.
double peak_bytes_added(Device device, const std::function<void()>& call);

}  // namespace rkt
