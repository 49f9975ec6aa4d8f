// RKT_CUDA_CHECK: turns a failed CUDA runtime call into an exception that names the call.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#define RKT_CUDA_CHECK(expression)                                                              \
  do {                                                                                          \
    const cudaError_t rkt_cuda_status = (expression);                                           \
    if (rkt_cuda_status != cudaSuccess) {                                                       \
      throw std::runtime_error(std::string(#expression) + " failed at " + __FILE__ + ":" +      \
                               std::to_string(__LINE__) + ": " +                                \
                               cudaGetErrorString(rkt_cuda_status));                            \
    }                                                                                           \
  } while (0)

/// Checks that the kernel launches just issued were accepted (bad configuration, no device...).
#define RKT_CUDA_CHECK_LAUNCH() RKT_CUDA_CHECK(cudaGetLastError())
