#include "framework/eval/warm_judge.h"

#include <map>

namespace rkt {

void WarmJudge::start_ahead(const std::string& gpu) {
  if (!starting_ahead_enabled()) return;
  if (waiting_ && gpu_ == gpu && waiting_->waiting()) return;
  std::map<std::string, std::string> environment;
  if (!gpu.empty()) environment["CUDA_VISIBLE_DEVICES"] = gpu;  // as judge_library gives its judge
  // Not ended with the starting thread: an eval's first judge is started by its main thread and
  // handed to a judge thread; a judge nobody takes ends when this object goes (or rkt with it).
  waiting_ = ProcessStartedAhead::start(judge_, "run", environment, /*end_with_parent=*/false);
  gpu_ = gpu;
}

std::unique_ptr<ProcessStartedAhead> WarmJudge::take(const std::string& gpu) {
  std::unique_ptr<ProcessStartedAhead> taken = std::move(waiting_);
  if (!taken || gpu_ != gpu || !taken->waiting()) return nullptr;
  return taken;
}

}  // namespace rkt
