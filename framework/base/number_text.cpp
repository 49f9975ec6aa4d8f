#include "framework/base/number_text.h"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace rkt {

std::string fixed_digits(double value, int digits) {
  if (!std::isfinite(value)) return "-";
  std::ostringstream text;
  text << std::fixed << std::setprecision(digits) << value;
  return text.str();
}

}  // namespace rkt
