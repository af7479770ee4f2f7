// Warp specialisation in a 1-D block of 256 threads: warps 0-3 only load (the tiles of phase p into
// buffer p % 2), warps 4-7 only compute (phase p - 1 from the other buffer, two elements of C per
// thread), one __syncthreads() per step reached by all at the same line. The producers write one
// buffer while the consumers read the other.
#include "matmul_lab.cuh"
#define T 16
__global__ void ws(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ float As[2][T][T];
  __shared__ float Bs[2][T][T];
  const int tid = threadIdx.x;
  const bool producer = tid < 128;
  const int r0 = blockIdx.y * T, c0 = blockIdx.x * T;
  const int phases = (n + T - 1) / T;
  float acc0 = 0.0f, acc1 = 0.0f;
  const int e0 = tid - 128, e1 = tid;  // consumer's two elements of C: e0 and e0 + 128
  for (int p = 0; p <= phases; ++p) {
    if (producer && p < phases) {  // load phase p into buffer p & 1
      const int t = p * T;
      for (int e = tid; e < T * T; e += 128) {
        const int r = e / T, c = e % T;
        As[p & 1][r][c] = (r0 + r < m && t + c < n) ? A[(r0 + r) * n + t + c] : 0.0f;
        Bs[p & 1][r][c] = (t + r < n && c0 + c < k) ? B[(t + r) * k + c0 + c] : 0.0f;
      }
    }
    if (!producer && p > 0) {  // compute phase p - 1 from buffer (p - 1) & 1
      const int b = (p - 1) & 1;
      for (int i = 0; i < T; ++i) {
        acc0 += As[b][e0 / T][i] * Bs[b][i][e0 % T];
        acc1 += As[b][e0 / T + 8][i] * Bs[b][i][e0 % T];
      }
    }
    __syncthreads();
  }
  (void)e1;
  if (!producer) {
    const int r = r0 + e0 / T, c = c0 + e0 % T;
    if (r < m && c < k) C[r * k + c] = acc0;
    if (r + 8 < m && c < k) C[(r + 8) * k + c] = acc1;
  }
}
void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  ws<<<dim3((k + T - 1) / T, (m + T - 1) / T), 256>>>(A, B, C, m, n, k);
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
