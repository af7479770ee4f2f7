// One source of truth for starter and solution (nbgrader's idea): a solution file marks the code a
// student writes with `// BEGIN SOLUTION` ... `// END SOLUTION`; the starter is the same file with
// each region replaced by the region's `// STARTER: ` lines (usually TODO comments), unprefixed.
#pragma once

#include <string>

namespace labkit {

struct StarterResult {
  bool ok = false;
  std::string text;   // the starter file
  std::string error;  // "line 42: END SOLUTION without BEGIN SOLUTION"
};

StarterResult MakeStarter(const std::string& solution_text);

}  // namespace labkit
