// The size limit of `rkt eval`'s library cache. A generation loop evaluates thousands of files and
// each kernel library is about a megabyte, so the cache would grow without end: past its limit,
// the least recently used libraries and compile logs are removed, never those the current batch
// uses (a cache hit refreshes a library's time, so "used" means judged or served, not built).
#pragma once

#include <cstdint>
#include <set>
#include <string>

namespace rkt {

/// The limit: $RKT_EVAL_CACHE_MB (MiB; 0 keeps everything), else kCacheLimitMegabytes.
/// Throws std::invalid_argument naming the variable when its value is not a whole number.
std::int64_t eval_cache_limit_bytes();

/// Marks a cached library or log as used now (its modification time), for the eviction order.
void mark_cache_entry_used(const std::string& path);

struct CachePruning {
  int removed_entries = 0;
  std::int64_t removed_bytes = 0;  // [bytes]
  std::int64_t kept_bytes = 0;     // [bytes]
};

/// Removes the least recently used `<key>.so` / `<key>.log` files of `folder` until the rest fit
/// in `limit_bytes` (0: no limit), keeping every key in `in_use`.
CachePruning prune_library_cache(const std::string& folder, std::int64_t limit_bytes,
                                 const std::set<std::string>& in_use);

}  // namespace rkt
