// Skips the arithmetic of a phase whose A tile is all zeros. The non-zero elements are counted with
// atomicAdd_block (the block-scoped atomic, compute capability 6.0 on, enough for a counter only
// this block touches) on a shared counter; two counters are used alternately so that thread 0's
// reset of the next phase's counter never meets this phase's atomics or reads. A second shared
// counter, read after the last barrier, checks that every element was loaded. All atomics are
// separated from the plain reads and resets by __syncthreads().
#include "matmul_lab.cuh"
#define T 16
__global__ void ac_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float As[T][T];
  __shared__ float Bs[T][T];
  __shared__ unsigned int nz[2];
  __shared__ int loaded;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  if (tx == 0 && ty == 0) {
    nz[0] = 0;
    loaded = 0;
  }
  __syncthreads();
  float sum = 0.0f;
  int p = 0;
  for (int t = 0; t < n; t += T, ++p) {
    const float a = (row < m && t + tx < n) ? A[row * n + t + tx] : 0.0f;
    As[ty][tx] = a;
    Bs[ty][tx] = (t + ty < n && col < k) ? B[(t + ty) * k + col] : 0.0f;
    if (a != 0.0f) atomicAdd_block(&nz[p & 1], 1u);
    atomicAdd_block(&loaded, 1);
    __syncthreads();
    if (tx == 0 && ty == 0) nz[(p + 1) & 1] = 0;  // reset the other counter for the next phase
    if (nz[p & 1] != 0)
      for (int i = 0; i < T; ++i) sum += As[ty][i] * Bs[i][tx];
    __syncthreads();
  }
  if (row < m && col < k && loaded == p * T * T) C[row * k + col] = sum;
}
void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  ac_kernel<<<dim3((k + T - 1) / T, (m + T - 1) / T), dim3(T, T)>>>(A, B, C, m, n, k);
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
