#include "framework/eval/visible_gpus.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <thread>

#include "framework/eval/eval_defaults.h"

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

int judges_per_gpu_by_default() {
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, std::min(eval_defaults::kMaxJudgesPerGpu, cores / eval_defaults::kCoresPerJudge));
}

std::vector<std::string> judge_slots(const std::vector<std::string>& gpus, int judges_per_gpu) {
  std::vector<std::string> slots;
  for (int round = 0; round < std::max(1, judges_per_gpu); ++round) {
    if (gpus.empty()) slots.push_back("");
    for (const std::string& gpu : gpus) slots.push_back(gpu);
  }
  return slots;
}

}  // namespace rkt
