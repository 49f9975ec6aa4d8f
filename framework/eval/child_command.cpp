#include "framework/eval/child_command.h"

#include <fcntl.h>
#include <unistd.h>

#include "framework/supervision/started_ahead.h"

namespace rkt {

ChildOutcome run_child_command(const ChildCommand& command, ProcessStartedAhead* started_ahead) {
  if (started_ahead == nullptr) return run_child_command(command);
  const auto start = std::chrono::steady_clock::now();
  HandedOverJob job;
  job.argv = command.argv;
  job.environment = environment_with(command.environment);
  job.working_directory = command.working_directory;
  const int output =
      ::open(command.output_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  job.standard_output = output;
  job.standard_error = output;
  const bool handed_over = output >= 0 && started_ahead->hand_over(job);
  if (output >= 0) ::close(output);
  if (!handed_over) return run_child_command(command);
  ChildOutcome outcome = wait_for_child(started_ahead->pid(), command, start);
  outcome.started_ahead = true;
  return outcome;
}

}  // namespace rkt
