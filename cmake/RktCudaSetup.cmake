# Enables CUDA when nvcc is found. Architectures default to 90 (H100/H200) and can be overridden
# with -DCMAKE_CUDA_ARCHITECTURES=...; LibTorch reads TORCH_CUDA_ARCH_LIST instead, so both are set
# from the same value (with no GPU to probe, LibTorch would otherwise guess).
set(RKT_WITH_CUDA OFF)
if(RKT_ENABLE_CUDA)
  include(CheckLanguage)
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(CMAKE_CUDA_RUNTIME_LIBRARY Shared)  # One CUDA runtime in the process, shared with LibTorch.
    find_package(CUDAToolkit REQUIRED)
    include("${CMAKE_CURRENT_LIST_DIR}/RktTorchArchList.cmake")
    rkt_set_torch_cuda_arch_list("${CMAKE_CUDA_ARCHITECTURES}")
    set(RKT_WITH_CUDA ON)
    message(STATUS "RobustKernelTest: CUDA ${CMAKE_CUDA_COMPILER_VERSION}, architectures "
                   "${CMAKE_CUDA_ARCHITECTURES}, TORCH_CUDA_ARCH_LIST=$ENV{TORCH_CUDA_ARCH_LIST}")
  else()
    message(STATUS "RobustKernelTest: nvcc not found; building the CPU half only")
  endif()
endif()
