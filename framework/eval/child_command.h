// A child judge's command handed to a process started ahead for it, or started afresh.
#pragma once

#include "framework/base/child_process.h"

namespace rkt {

class ProcessStartedAhead;

/// Runs `command` as run_child_command does, but hands it to `started_ahead` (a process started
/// ahead for argv[0]'s command with this environment: framework/supervision/started_ahead.h)
/// where that one takes it; one that has gone is replaced by a new start.
ChildOutcome run_child_command(const ChildCommand& command, ProcessStartedAhead* started_ahead);

}  // namespace rkt
