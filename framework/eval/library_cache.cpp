#include "framework/eval/library_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "framework/base/file_access.h"
#include "framework/eval/eval_defaults.h"

namespace rkt {

std::int64_t eval_cache_limit_bytes() {
  std::int64_t megabytes = eval_defaults::kCacheLimitMegabytes;
  if (const char* chosen = std::getenv(eval_defaults::kCacheLimitVariable); chosen && *chosen) {
    const std::string text = chosen;
    if (text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos) {
      throw std::invalid_argument(std::string(eval_defaults::kCacheLimitVariable) +
                                  " takes a whole number of MiB (0: no limit), not '" + text + "'");
    }
    megabytes = std::stoll(text);
  }
  return megabytes * 1024 * 1024;
}

void mark_cache_entry_used(const std::string& path) {
  ::utimensat(AT_FDCWD, path.c_str(), nullptr, 0);  // now; a failure only ages the entry
}

CachePruning prune_library_cache(const std::string& folder, std::int64_t limit_bytes,
                                 const std::set<std::string>& in_use) {
  struct Entry {
    std::int64_t modified_ns;
    std::string path;
    std::int64_t bytes;
  };
  CachePruning result;
  std::vector<Entry> evictable;
  for (const std::string& name : directory_entries(folder)) {
    const std::size_t dot = name.rfind('.');
    const std::string extension = dot == std::string::npos ? "" : name.substr(dot);
    // Partial files of a compile in progress (<key>.<pid>.<thread>.partial.*) are not entries.
    const bool entry = extension == ".so" || extension == ".log";
    if (!entry || name.find(".partial") != std::string::npos) continue;
    struct stat info {};
    const std::string path = folder + "/" + name;
    if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) continue;
    result.kept_bytes += info.st_size;
    const std::string key = name.substr(0, dot);
    if (in_use.count(key) != 0) continue;
    evictable.push_back({static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec,
                         path, static_cast<std::int64_t>(info.st_size)});
  }
  if (limit_bytes <= 0 || result.kept_bytes <= limit_bytes) return result;
  std::sort(evictable.begin(), evictable.end(), [](const Entry& a, const Entry& b) {
    return std::tie(a.modified_ns, a.path) < std::tie(b.modified_ns, b.path);
  });
  for (const Entry& entry : evictable) {
    if (result.kept_bytes <= limit_bytes) break;
    // A library loaded by a running judge stays mapped after its name is removed.
    if (::unlink(entry.path.c_str()) != 0) continue;
    result.kept_bytes -= entry.bytes;
    result.removed_bytes += entry.bytes;
    ++result.removed_entries;
  }
  return result;
}

}  // namespace rkt
