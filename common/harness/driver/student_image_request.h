// The request's "student_image": what of the student's program a replay may use (labgrade's
// lists, grader/build/student_image.h) and, for the kit's replay program, where the student's
// device code is and what its kernels and variables are called (kit_replay_program.h).
#pragma once

#include <nlohmann/json.hpp>

#include "replay_executor.h"

namespace labkit {

// An empty image where the request has none (a run that replays nothing).
replay::StudentImage StudentImageOf(const nlohmann::json& request);

}  // namespace labkit
