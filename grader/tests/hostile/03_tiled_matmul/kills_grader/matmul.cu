// Kills its parent (labgrade, or whatever runs the harness) and then its parent's whole process
// group. The grader must survive and report this submission.
#include <signal.h>
#include <unistd.h>
#include "../../common/correct_kernels.cuh"

void matmul_tiled_any(const float*, const float*, float*, int, int, int) {
  const pid_t parent = getppid();
  const pid_t group = getpgid(parent);
  if (parent > 1) kill(parent, SIGKILL);
  if (group > 1) kill(-group, SIGKILL);
}
