#include "framework/base/environment_switch.h"

#include <cstdlib>
#include <string>

namespace rkt {

bool on_unless_set_to_zero(const char* variable) {
  const char* setting = std::getenv(variable);
  return setting == nullptr || std::string(setting) != "0";
}

}  // namespace rkt
