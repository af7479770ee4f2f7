// `labgrade gradescope-bundle`: a Gradescope autograder for one lab. Gradescope's machines have no
// GPU, so the bundle grades correctness with the CPU backend; speed is graded on the course's own
// GPU with `labgrade grade` (docs/GRADESCOPE.md).
#pragma once

#include <string>

#include "lab_spec.h"
#include "manifest.h"
#include "result.h"

namespace labkit {

// Writes DIR/setup.sh, DIR/run_autograder, DIR/source/ (the kit's sources, without builds or
// solutions' git history) and DIR/autograder.zip holding all three.
Status WriteGradescopeBundle(const Manifest& manifest, const LabSpec& spec, const std::string& dir);

// The two scripts, exposed for tests.
std::string GradescopeSetupScript();
std::string GradescopeRunScript(const LabSpec& spec);

}  // namespace labkit
