// How reports and tables print a number: fixed digits, "-" where there is none.
#pragma once

#include <string>

namespace rkt {

/// `value` with `digits` digits after the point; "-" when it is not finite (not measured).
std::string fixed_digits(double value, int digits);

}  // namespace rkt
