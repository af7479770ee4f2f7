// The expected values of a query exercise's drawn cases, worked out by labgrade itself (lab.yaml
// drawn.expected_by, lab_spec.h QueryDrawn). The harness works them out too, but in the process the
// student's code runs in, where a submission that reaches the C library past the symbol check
// could write its own response lines: for the cases drawn from the seed, whose every input labgrade
// chose, its own numbers are the evidence (docs/THREAT_MODEL.md).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "lab_spec.h"

namespace labkit {

// A wrong answer a known slip gives, and its usual cause (as a harness's hint).
struct DrawnHint {
  std::string value_name;
  double value = 0;
  std::string cause;
};

// What labgrade works out for one drawn case: value name -> expected value, and the hints of the
// formula's slips, most common first (the harness words none for these cases: they would give the
// answer away in the student's process).
struct DrawnValues {
  std::map<std::string, double> expected;
  std::vector<DrawnHint> hints;
};

// The student's kernel a formula reads (lab.yaml drawn.kernel) as the runtime sees it, from the
// build's report of its kernels (judge/query_grader.cpp works it out); unknown where there is none.
struct StudentKernel {
  bool known = false;
  std::string unknown_why;  // when not known
  long long registers = 0;
  long long static_shared = 0;
  long long max_threads = 1024;  // cudaFuncAttributes::maxThreadsPerBlock
};

// The values of the case `params` drawn under `drawn`; an error when the formula lacks a parameter,
// a known fact (a lab.yaml the kit's own tests would fail) or the student's kernel it reads (the
// grader's fault); none for DrawnExpected::kHarness.
Result<DrawnValues> DrawnExpectedValues(const QueryDrawn& drawn, const ParamSet& params,
                                        const StudentKernel& kernel = {});

}  // namespace labkit
