# rkt_set_torch_cuda_arch_list(<CUDA architectures>)
# LibTorch's CMake adds nvcc flags for every architecture it knows unless the environment
# variable TORCH_CUDA_ARCH_LIST names the ones to build (with no GPU to probe it guesses, and
# nvcc 13 rejects the oldest of its guesses). Sets it from the first of the CMake CUDA
# architectures given ("90" or "90-real" -> "9.0"), unless the environment already sets it.
# Call before find_package(Torch); used by RktCudaSetup and by the package's config.
function(rkt_set_torch_cuda_arch_list architectures)
  if(DEFINED ENV{TORCH_CUDA_ARCH_LIST} OR NOT architectures)
    return()
  endif()
  list(GET architectures 0 first)
  string(REGEX REPLACE "[^0-9]" "" digits "${first}")
  string(REGEX REPLACE "([0-9]+)([0-9])$" "\\1.\\2" torch_arch "${digits}")
  set(ENV{TORCH_CUDA_ARCH_LIST} "${torch_arch}")
endfunction()
