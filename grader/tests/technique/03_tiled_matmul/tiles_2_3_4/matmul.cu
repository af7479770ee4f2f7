// Tiles of 2, 3 and 4 (the exercise slots only carry the variants: see technique_test.cpp).
#include "../common/square_tiles.cuh"

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  variants::square_tiles<2>(A, B, C, m, n, k);
}
void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  variants::square_tiles<3>(A, B, C, m, n, k);
}
void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  variants::square_tiles<4>(A, B, C, m, n, k);
}
