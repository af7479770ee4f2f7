// B's tile is 64 deep and shared by the block (__syncthreads). Each warp (two rows of the 16 x 16
// block) streams its own two rows of A through a warp-private shared buffer, 16 columns at a time:
// write, __syncwarp(), read, __syncwarp(), four rounds between two block barriers. The buffer is
// rewritten after reads by other lanes of the same warp with only a __syncwarp between them.
#include "matmul_lab.cuh"
#define T 16
#define KB 64
__global__ void wp(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float Bs[KB][T];
  __shared__ float Aw[8][2][T];  // [warp][row of the warp][column]
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int w = ty / 2, wr = ty % 2;
  const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float sum = 0.0f;
  for (int t = 0; t < n; t += KB) {
    for (int r = ty; r < KB; r += T)
      Bs[r][tx] = (t + r < n && col < k) ? B[(t + r) * k + col] : 0.0f;
    __syncthreads();
    for (int s = 0; s < KB; s += T) {
      Aw[w][wr][tx] = (row < m && t + s + tx < n) ? A[row * n + t + s + tx] : 0.0f;
      __syncwarp();
      for (int i = 0; i < T; ++i) sum += Aw[w][wr][i] * Bs[s + i][tx];
      __syncwarp();
    }
    __syncthreads();
  }
  if (row < m && col < k) C[row * k + col] = sum;
}
void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  wp<<<dim3((k + T - 1) / T, (m + T - 1) / T), dim3(T, T)>>>(A, B, C, m, n, k);
}
void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_tiled_any(A, B, C, m, n, k);
}

__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  const int r = blockIdx.y * blockDim.y + threadIdx.y, c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= m || c >= k) return;
  float s = 0.0f;
  for (int i = 0; i < n; ++i) s += A[r * n + i] * B[i * k + c];
  C[r * k + c] = s;
}

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_rows_kernel<<<dim3((k + 15) / 16, (m + 15) / 16), dim3(16, 16)>>>(A, B, C, m, n, k);
}
