// The kit's replay program (GPU): the harness driver with this in place of a lab's table and the
// student's objects. labgrade links it once (SubmissionBuilder::LinkKitReplayProgram) and runs
// every GPU replay of a submission in it: the default and -fmad=false builds' cases, the
// sanitizers', the counted and the timed runs. The student's device code comes from the
// fatbinaries labgrade names in the request (student_device_code.h), so none of the student's
// host code, static initialisers included, runs in the process whose outputs are graded.
#include "matmul_harness.h"

std::vector<labkit::MatmulExercise> labkit::lab_exercises() { return {}; }
bool labkit::replay_only_program() { return true; }
