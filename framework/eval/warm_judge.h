// The next child judge of one judge slot, started ahead. rkt eval's and rkt serve's judge slots
// each keep one `rkt run` process started for the file they will judge next: LibTorch loaded and
// its own first child started ahead, CUDA context made, while the compiler or the previous file's
// judge runs. The file's `rkt run` is handed to it (framework/supervision/started_ahead.h); each
// judges one file and ends, so nothing of one file's judge survives into another's.
#pragma once

#include <memory>
#include <string>

#include "framework/supervision/started_ahead.h"

namespace rkt {

class WarmJudge {
 public:
  explicit WarmJudge(std::string judge_executable) : judge_(std::move(judge_executable)) {}

  /// Starts a judge ahead for GPU `gpu` (the CUDA_VISIBLE_DEVICES its file's judge gets; "" keeps
  /// ours) unless one for it waits already. Under RKT_START_AHEAD=0 it does nothing.
  void start_ahead(const std::string& gpu);
  /// The judge started ahead for `gpu` when one still waits, else nullptr (one started for another
  /// GPU is ended). The slot is empty afterwards.
  std::unique_ptr<ProcessStartedAhead> take(const std::string& gpu);

 private:
  std::string judge_;
  std::string gpu_;
  std::unique_ptr<ProcessStartedAhead> waiting_;
};

}  // namespace rkt
