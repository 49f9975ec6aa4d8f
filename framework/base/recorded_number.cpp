#include "framework/base/recorded_number.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace rkt {

double as_recorded(double value) {
  if (!std::isfinite(value)) return value;
  // %g is std::setprecision's default notation: the same rounding as the text written before.
  char text[32];
  std::snprintf(text, sizeof text, "%.*g", kRecordedSignificantDigits, value);
  return std::strtod(text, nullptr);
}

}  // namespace rkt
