#include "deadline_runner.h"

#include <algorithm>

namespace labkit {

ProcessResult DeadlineRunner::Run(const Command& command) {
  const double left =
      std::chrono::duration<double>(deadline_ - std::chrono::steady_clock::now()).count();
  if (left <= 0) {
    ProcessResult refused;
    refused.start_error = "the submission's overall time limit (" +
                          std::to_string(static_cast<int>(seconds_)) + " s) was spent";
    return refused;
  }
  Command limited = command;
  limited.timeout_seconds = std::min(command.timeout_seconds, left);
  return inner_.Run(limited);
}

}  // namespace labkit
