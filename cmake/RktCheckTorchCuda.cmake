# Checks that LibTorch and the CUDA toolkit we compile with agree on the CUDA major version:
# kernels built with one runtime and run beside LibTorch's other runtime fail in confusing ways.
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
    string(REGEX MATCH "^[0-9]+" rkt_torch_major "${RKT_TORCH_CUDA_VERSION}")
    string(REGEX MATCH "^[0-9]+" rkt_nvcc_major "${CMAKE_CUDA_COMPILER_VERSION}")
    if(NOT rkt_torch_major STREQUAL rkt_nvcc_major)
      message(FATAL_ERROR
        "RobustKernelTest: LibTorch at ${TORCH_INSTALL_PREFIX} was built for CUDA "
        "${RKT_TORCH_CUDA_VERSION} but nvcc (${CMAKE_CUDA_COMPILER}) is CUDA "
        "${CMAKE_CUDA_COMPILER_VERSION}. Their major versions must match: install a torch wheel "
        "built for CUDA ${rkt_nvcc_major}, point CMAKE_CUDA_COMPILER at a CUDA "
        "${rkt_torch_major} toolkit, or configure with -DRKT_ENABLE_CUDA=OFF.")
    endif()
  else()
    message(WARNING "RobustKernelTest: could not tell which CUDA this LibTorch was built for; "
                    "make sure its major version matches nvcc's ${CMAKE_CUDA_COMPILER_VERSION}")
  endif()
endif()
message(STATUS "RobustKernelTest: LibTorch ${Torch_VERSION} (CUDA '${RKT_TORCH_CUDA_VERSION}'), "
               "CUDA kernels ${RKT_WITH_CUDA}")
