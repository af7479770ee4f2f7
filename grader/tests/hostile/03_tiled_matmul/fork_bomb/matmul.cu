// A (bounded) fork bomb: hundreds of processes that never exit, and a parent that never returns.
// Bounded so that a grader without a process limit does not take the CI machine down with it.
#include <sys/prctl.h>
#include <unistd.h>
#include "../../common/correct_kernels.cuh"

void matmul_tiled_any(const float*, const float*, float*, int, int, int) {
  for (int i = 0; i < 300; ++i) {
    const pid_t pid = fork();
    if (pid < 0) break;
    if (pid == 0) {
      prctl(PR_SET_NAME, "hostile_bomb");
      alarm(120);  // a last resort, should the grader leave it behind
      for (;;) pause();
    }
  }
  prctl(PR_SET_NAME, "hostile_bomb");
  volatile int forever = 1;
  while (forever) {
  }
}
