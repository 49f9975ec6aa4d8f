#include "framework/base/utc_time.h"

#include <ctime>
#include <iomanip>
#include <sstream>

namespace rkt {

std::string utc_time(const char* format) {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::ostringstream text;
  text << std::put_time(&utc, format);
  return text.str();
}

}  // namespace rkt
