# Checks that LibTorch and the CUDA toolkit we compile with agree on the CUDA major version:
# kernels built with one runtime and run beside LibTorch's other runtime fail in confusing ways.
include("${CMAKE_CURRENT_LIST_DIR}/RktCudaVersionMatch.cmake")
set(RKT_TORCH_CUDA_VERSION "")
if(EXISTS "${TORCH_INSTALL_PREFIX}/version.py")  # The PyPI wheel.
  file(STRINGS "${TORCH_INSTALL_PREFIX}/version.py" rkt_line REGEX "^cuda")
  string(REGEX MATCH "'([0-9]+\\.[0-9]+)'" rkt_match "${rkt_line}")
  set(RKT_TORCH_CUDA_VERSION "${CMAKE_MATCH_1}")
elseif(EXISTS "${TORCH_INSTALL_PREFIX}/build-version")  # A LibTorch archive: "2.11.0+cu130".
  file(READ "${TORCH_INSTALL_PREFIX}/build-version" rkt_line)
  if(rkt_line MATCHES "cu([0-9]+)([0-9])")
    set(RKT_TORCH_CUDA_VERSION "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
  endif()
endif()

if(RKT_WITH_CUDA)
  if(NOT TARGET torch_cuda)
    message(STATUS "RobustKernelTest: this LibTorch has no CUDA; CUDA kernels are not built")
    set(RKT_WITH_CUDA OFF)
  elseif(RKT_TORCH_CUDA_VERSION)
    rkt_require_cuda_major_match("${RKT_TORCH_CUDA_VERSION}" "${CMAKE_CUDA_COMPILER_VERSION}"
                                 "${TORCH_INSTALL_PREFIX}" "${CMAKE_CUDA_COMPILER}")
  else()
    message(WARNING "RobustKernelTest: could not tell which CUDA this LibTorch was built for; "
                    "make sure its major version matches nvcc's ${CMAKE_CUDA_COMPILER_VERSION}")
  endif()
endif()
message(STATUS "RobustKernelTest: LibTorch ${Torch_VERSION} (CUDA '${RKT_TORCH_CUDA_VERSION}'), "
               "CUDA kernels ${RKT_WITH_CUDA}")
