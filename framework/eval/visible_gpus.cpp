#include "framework/eval/visible_gpus.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>

namespace rkt {

std::vector<std::string> visible_gpus() {
  std::vector<std::string> gpus;
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::istringstream entries(visible);
    for (std::string entry; std::getline(entries, entry, ',');) {
      if (!entry.empty()) gpus.push_back(entry);
    }
    return gpus;
  }
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen("nvidia-smi -L 2>/dev/null", "r"), ::pclose);
  if (!pipe) return gpus;
  std::array<char, 512> line{};
  while (std::fgets(line.data(), line.size(), pipe.get()) != nullptr) {
    if (std::string(line.data()).rfind("GPU ", 0) == 0) gpus.push_back(std::to_string(gpus.size()));
  }
  return gpus;
}

}  // namespace rkt
