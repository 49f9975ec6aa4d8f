# Script-mode check of rkt_require_cuda_major_match: run with -DTORCH_CUDA=... -DNVCC=...
include("${CMAKE_CURRENT_LIST_DIR}/../../cmake/RktCudaVersionMatch.cmake")
rkt_require_cuda_major_match("${TORCH_CUDA}" "${NVCC}" "/path/to/torch" "/path/to/nvcc")
message(STATUS "CUDA major versions match: ${TORCH_CUDA} and ${NVCC}")
