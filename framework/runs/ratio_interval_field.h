// The one field both results files (a run's and the baseline table's) write a ratio into.
#pragma once

#include "framework/base/json_fields.h"
#include "framework/timing/sample_statistics.h"

namespace rkt {

/// {"ratio", "low", "high"}: a ratio with its bootstrap interval, as the writers record it.
inline RatioInterval read_ratio_interval(const JsonFields& interval) {
  return {interval.number("ratio"), interval.number("low"), interval.number("high")};
}

}  // namespace rkt
