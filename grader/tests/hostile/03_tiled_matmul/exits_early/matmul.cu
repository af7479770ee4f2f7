// Ends the harness's process with status 0 from inside the student's function, before any output.
#include <cstdlib>
#include "../../common/correct_kernels.cuh"

void matmul_tiled_any(const float*, const float*, float*, int, int, int) { std::exit(0); }
