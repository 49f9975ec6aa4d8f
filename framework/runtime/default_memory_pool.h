// The device's default memory pool (where cudaMallocAsync allocates a kernel's scratch), read
// through the CUDA runtime alone: the one part of a call's peak memory a worker without LibTorch
// can see, and the part a LibTorch process adds to its caching allocator's peak.
#pragma once

namespace rkt {

/// From construction on, the high-water mark of the current device's default pool above what it
/// held then. Nothing is measured without CUDA or a pool (bytes_added() is 0).
class DefaultPoolWatermark {
 public:
  DefaultPoolWatermark();
  double bytes_added() const;  // [bytes]

 private:
  void* pool_ = nullptr;  // cudaMemPool_t
  double before_ = 0;     // [bytes] in use at construction
};

}  // namespace rkt
