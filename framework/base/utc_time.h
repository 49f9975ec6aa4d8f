// The current time in UTC, formatted: run folder names and the "started" field of results.
#pragma once

#include <string>

namespace rkt {

/// Now, in UTC, through std::put_time's `format` (e.g. "%Y%m%dT%H%M%SZ").
std::string utc_time(const char* format);

}  // namespace rkt
