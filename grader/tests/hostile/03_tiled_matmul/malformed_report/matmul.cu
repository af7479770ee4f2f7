// Correct kernels, plus one hostile act: on its first call it appends lines to the grader's
// response file whose fields have the wrong types (a number for a status, a string for a grid,
// an array for a whole line), for every case id it could guess. The grader must read them as
// garbage and grade on, never stop on them.
#include <cstdio>
#include <string>
#include "../../common/correct_kernels.cuh"

static void append_malformed_lines() {
  FILE* f = std::fopen("response.jsonl", "a");
  if (f == nullptr) return;
  std::fputs("[1, 2, 3]\n{\"type\": 5}\n{\"type\": \"device\", \"name\": 3, \"sm_count\": \"many\"}\n", f);
  std::fputs("{\"type\": \"timing\", \"status\": [\"ok\"], \"ms\": \"fast\"}\n", f);
  std::fputs("{\"type\": \"error\", \"detail\": {\"not\": \"text\"}}\n{\"type\": \"done\", \"x\": null}\n", f);
  for (const char* exercise : {"rows", "tiled", "tiled_any"})
    for (int i = 0; i < 16; ++i)
      std::fprintf(f,
                   "{\"type\": \"case\", \"id\": \"%s_%d\", \"status\": 7, \"error\": [], "
                   "\"launches\": [1, {\"kernel\": 2, \"grid\": \"x\", \"block\": [1, \"a\", 3]}], "
                   "\"transfers\": \"none\"}\n",
                   exercise, i);
  std::fclose(f);
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  static const bool appended = (append_malformed_lines(), true);
  (void)appended;
  hostile::launch_tiled(A, B, C, m, n, k);
}
