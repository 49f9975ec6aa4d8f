#include "framework/base/gpu_architecture.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace rkt {

std::string visible_gpu_architecture() {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible != nullptr && std::string(visible).empty()) return "";
  std::string command = "nvidia-smi --query-gpu=compute_cap --format=csv,noheader";
  if (visible != nullptr) command += " --id=" + std::string(visible).substr(0, std::string(visible).find(','));
  command += " 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  if (!pipe) return "";
  std::array<char, 64> line{};
  if (std::fgets(line.data(), line.size(), pipe.get()) == nullptr) return "";
  std::string architecture;
  for (const char c : std::string(line.data())) {
    if (c >= '0' && c <= '9') architecture += c;
    if (c == '\n') break;
  }
  return architecture.size() >= 2 ? architecture : "";
}

}  // namespace rkt
