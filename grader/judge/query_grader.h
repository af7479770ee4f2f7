// Query exercises (lab.yaml `kind: query`): the harness calls the student's function and the kit's
// own computation of the same numbers for each parameter set, and reports both. Here they are
// compared, exactly or within the lab's relative tolerance, and a mismatch is explained: which
// quantity, for which parameters, expected and got, and the usual cause when the kit recognised
// the wrong answer.
//
// Request:  {"exercise": "occupancy", "cases": [{"id": "q0", "params": {"block_side": 16}}]}
// Response: {"type": "case", "id": "q0", "status": "ok",
//            "values": {"active_blocks": {"student": 20, "expected": 20,
//                                         "hints": [{"value": 32, "cause": "..."}]}}}
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "drawn_shapes.h"
#include "exercise_grader.h"
#include "lab_spec.h"

namespace labkit {

// One reported value against its spec: "" when it matches, else the student-facing sentence(s).
// `value` is the harness's {"student", "expected", "hints"} object (absent: null).
std::string CompareQueryValue(const QueryValueSpec& spec, const ParamSet& params,
                              const nlohmann::json& value);

// "20", "0.625", "1e-07": integers without a fraction, the rest with `digits` significant digits.
std::string NumberText(double value, int digits = 6);

ExerciseVerdict GradeQueryExercise(GradeEnv& env, const Exercise& exercise);

}  // namespace labkit
