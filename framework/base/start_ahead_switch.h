// The one switch for processes started ahead of their work: judges and case children
// (supervision/started_ahead.h), workers awaiting their library, and a lost worker's replacement
// (isolation/kernel_library.h). RKT_START_AHEAD=0 starts each process when its work is known.
#pragma once

namespace rkt {

/// RKT_START_AHEAD=0: no process is started ahead (each starts when its work is known).
inline constexpr const char* kStartAheadVariable = "RKT_START_AHEAD";

/// Whether processes are started ahead (RKT_START_AHEAD is not "0").
bool starting_ahead_enabled();

}  // namespace rkt
