// `rkt run --shard I/N`: which kernels one shard of a run takes.
//
// The rule (docs/sharding.md): the kernels the run selects (--kernel) are sorted by their
// "task/kernel" id, and the kernel at position p (0-based) belongs to shard (p mod N) + 1.
// Every shard process sees the same registry and the same --kernel, so every selected kernel
// runs in exactly one shard, and shards differ in size by at most one kernel. Adding a kernel
// can move others to another shard: a shard is a share of one run, not a stable home.
#pragma once

#include <string>
#include <vector>

namespace rkt {

class KernelSpec;

struct ShardSpec {
  int index = 0;  ///< 1-based; 0 with count 0: not sharded.
  int count = 0;
  bool sharded() const { return count > 0; }
  std::string label() const { return std::to_string(index) + "/" + std::to_string(count); }
};

/// Parses "I/N" (1 <= I <= N). Throws std::invalid_argument naming what is wrong with `text`.
ShardSpec parse_shard(const std::string& text);

/// The kernels whose full id contains one of `kernel_fragments` (all when none), sorted by full id.
std::vector<const KernelSpec*> selected_kernels(const std::vector<std::string>& kernel_fragments);

/// The share of `sorted` (kernels, or a baseline table's tasks, sorted by id) that `shard` runs:
/// positions I-1, I-1+N, I-1+2N, ... (all of them when not sharded).
template <typename Item>
std::vector<Item> shard_share(const std::vector<Item>& sorted, const ShardSpec& shard) {
  if (!shard.sharded()) return sorted;
  std::vector<Item> share;
  for (std::size_t p = 0; p < sorted.size(); ++p) {
    if (static_cast<int>(p % static_cast<std::size_t>(shard.count)) == shard.index - 1) {
      share.push_back(sorted[p]);
    }
  }
  return share;
}

}  // namespace rkt
