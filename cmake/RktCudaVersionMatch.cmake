# rkt_require_cuda_major_match(TORCH_CUDA NVCC_VERSION TORCH_PREFIX NVCC_PATH)
# Stops configuration with a message saying what to do when LibTorch's CUDA major version
# differs from nvcc's. Kept apart so that tests/cmake can run it in script mode.
function(rkt_require_cuda_major_match torch_cuda nvcc_version torch_prefix nvcc_path)
  string(REGEX MATCH "^[0-9]+" torch_major "${torch_cuda}")
  string(REGEX MATCH "^[0-9]+" nvcc_major "${nvcc_version}")
  if(NOT torch_major STREQUAL nvcc_major)
    message(FATAL_ERROR
      "RobustKernelTest: LibTorch at ${torch_prefix} was built for CUDA ${torch_cuda} but nvcc "
      "(${nvcc_path}) is CUDA ${nvcc_version}. Their major versions must match: install a torch "
      "wheel built for CUDA ${nvcc_major}, point CMAKE_CUDA_COMPILER at a CUDA ${torch_major} "
      "toolkit, or configure with -DRKT_ENABLE_CUDA=OFF.")
  endif()
endfunction()
