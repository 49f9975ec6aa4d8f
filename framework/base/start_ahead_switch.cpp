#include "framework/base/start_ahead_switch.h"

#include <cstdlib>
#include <string>

namespace rkt {

bool starting_ahead_enabled() {
  const char* setting = std::getenv(kStartAheadVariable);
  return setting == nullptr || std::string(setting) != "0";
}

}  // namespace rkt
