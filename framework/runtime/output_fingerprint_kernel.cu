#include <cuda_runtime_api.h>

#include "framework/runtime/output_fingerprint_kernel.h"

namespace rkt {
namespace {

constexpr int kHashThreads = 256;  // a multiple of 64: the warps pair up by direction
constexpr int kHashMaxBlocks = 1024;  // a grid-stride loop: enough to fill an H200 several times

__device__ std::uint64_t mix_word(std::uint64_t position, std::uint64_t word) {
  // splitmix64's finaliser over the word and its position.
  std::uint64_t z = (position * 0x9E3779B97F4A7C15ull) ^ (word + 0x632BE59BD9B4E019ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The bytes at `data`: `head` bytes up to a 4-byte boundary, then `words` 32-bit words, then the
// bytes after them up to `bytes` (the head and the tail, at most 6 bytes, by one thread).
//
// The order matters. Work still writing the outputs when the hash runs must be seen, but a
// reader that walks the buffer in the writer's order trails it and reads only finished words
// (seen on the H200: a grid-stride relu on a side stream, hashed by a grid-stride pass, passed).
// So the warps alternate direction: even warps walk the first half of the words from the start,
// odd warps the second half from the end. A writer in either direction meets a reader coming
// the other way; every word is hashed exactly once.
__global__ void byte_hash_kernel(const unsigned char* data, std::size_t head, std::size_t words,
                                 std::size_t bytes, unsigned long long* slot) {
  const auto* data_words =
      reinterpret_cast<const volatile unsigned int*>(data + head);  // read memory now, not L1
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t warp = thread / 32, lane = thread % 32;
  const bool from_end = (warp & 1) != 0;
  // Threads per direction (blockDim.x is a multiple of 64) and this thread's rank among them.
  const std::size_t per_direction = static_cast<std::size_t>(gridDim.x) * blockDim.x / 2;
  const std::size_t rank = (warp / 2) * 32 + lane;
  const std::size_t forward_words = (words + 1) / 2;  // the first half; the rest from the end
  const std::size_t mine = from_end ? words - forward_words : forward_words;
  std::uint64_t sum = 0;
  for (std::size_t j = rank; j < mine; j += per_direction) {
    const std::size_t i = from_end ? words - 1 - j : j;
    sum += mix_word(i, data_words[i]);
  }
  if (thread == 0) {
    const auto* volatile_bytes = reinterpret_cast<const volatile unsigned char*>(data);
    for (std::size_t b = 0; b < head; ++b) sum += mix_word(b + (1ull << 62), volatile_bytes[b]);
    for (std::size_t b = head + words * 4; b < bytes; ++b) {
      sum += mix_word(b + (1ull << 62), volatile_bytes[b]);
    }
  }
  atomicAdd(slot, static_cast<unsigned long long>(sum));
}

}  // namespace

int enqueue_byte_hash(const void* data, std::size_t bytes, std::uint64_t* device_slot,
                      void* cuda_stream) {
  const auto stream = static_cast<cudaStream_t>(cuda_stream);
  // A misaligned output (the misaligned-pointer case moves 16-bit data by 2 bytes) is hashed
  // from its first 4-byte boundary on, its few leading bytes apart.
  const std::size_t offset = reinterpret_cast<std::uintptr_t>(data) % 4;
  std::size_t head = offset == 0 ? 0 : 4 - offset;
  if (head > bytes) head = bytes;
  const std::size_t words = (bytes - head) / 4;
  std::size_t blocks = (words + kHashThreads - 1) / kHashThreads;
  if (blocks == 0) blocks = 1;
  if (blocks > kHashMaxBlocks) blocks = kHashMaxBlocks;
  byte_hash_kernel<<<static_cast<unsigned>(blocks), kHashThreads, 0, stream>>>(
      static_cast<const unsigned char*>(data), head, words, bytes,
      reinterpret_cast<unsigned long long*>(device_slot));
  return static_cast<int>(cudaGetLastError());
}

}  // namespace rkt
