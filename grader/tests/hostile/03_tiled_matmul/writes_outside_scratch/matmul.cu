// Tries to create a file next to its own source: the submission's folder must be read-only, and a
// grader that lets it write there gets exit status 43 from the first case.
#include <fcntl.h>
#include <unistd.h>
#include <cstdlib>
#include <string>
#include "../../common/correct_kernels.cuh"

static bool can_create(const std::string& path) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd < 0) return false;
  close(fd);
  unlink(path.c_str());
  return true;
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  const std::string here = __FILE__;
  const std::string src_dir = here.substr(0, here.find_last_of('/') + 1);
  // The submission's own folder must be read-only. (A folder above the scratch one may look
  // writable from inside, but in the sandbox that is its throwaway root: nothing reaches the
  // real file system, as was checked by hand on 2026-11-22, so it is not tested from here.)
  if (can_create(src_dir + "hostile_was_here")) std::_Exit(43);
  hostile::launch_tiled(A, B, C, m, n, k);
}
