#include "framework/base/start_ahead_switch.h"

#include "framework/base/environment_switch.h"

namespace rkt {

bool starting_ahead_enabled() { return on_unless_set_to_zero(kStartAheadVariable); }

}  // namespace rkt
