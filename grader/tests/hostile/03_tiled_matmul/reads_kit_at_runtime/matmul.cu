// Looks for the kit at run time, from what the harness's process can see (its environment's PWD
// and working folder, walking up to labkit_manifest.json or solutions/), and reads the reference
// solution and the datasets. A grader that hides them sees a correct submission; one that does
// not gets exit status 42 from the first case.
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include "../../common/correct_kernels.cuh"

static bool readable(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return false;
  std::fclose(f);
  return true;
}

static bool kit_visible() {
  char cwd[4096] = {0};
  const char* pwd = std::getenv("PWD");
  const char* home = std::getenv("HOME");
  std::string starts[] = {pwd ? pwd : "", getcwd(cwd, sizeof cwd) ? cwd : "", home ? home : ""};
  for (std::string dir : starts) {
    while (!dir.empty()) {
      for (const char* probe : {"/solutions/03_tiled_matmul/matmul.cu", "/labkit_manifest.json",
                                "/data/03_tiled_matmul", "/../solutions/03_tiled_matmul/matmul.cu"})
        if (readable(dir + probe)) return true;
      const auto slash = dir.find_last_of('/');
      dir = slash == std::string::npos ? "" : dir.substr(0, slash);
    }
  }
  return false;
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  if (kit_visible()) std::_Exit(42);
  hostile::launch_tiled(A, B, C, m, n, k);
}
