// Both tiles in one __shared__ variable of an unnamed union type, declared in place: a flat view
// through which each thread loads element tid of A's tile and element tid of B's tile (linear
// thread index), and a struct view of two 2-D tiles that the dot product reads.
#include "matmul_lab.cuh"
#define T 16
__global__ void un_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  __shared__ union {
    struct {
      float a[T][T];
      float b[T][T];
    } t;
    float flat[2 * T * T];
  } sm;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * T + tx;
  const int row = blockIdx.y * T + ty, col = blockIdx.x * T + tx;
  float sum = 0.0f;
  for (int t = 0; t < n; t += T) {
    {  // element tid of the flat view: row tid / T, column tid % T of A's tile
      const int r = blockIdx.y * T + tid / T, c = t + tid % T;
      sm.flat[tid] = (r < m && c < n) ? A[r * n + c] : 0.0f;
    }
    {
      const int r = t + tid / T, c = blockIdx.x * T + tid % T;
      sm.flat[T * T + tid] = (r < n && c < k) ? B[r * k + c] : 0.0f;
    }
    __syncthreads();
    for (int i = 0; i < T; ++i) sum += sm.t.a[ty][i] * sm.t.b[i][tx];
    __syncthreads();
  }
  if (row < m && col < k) C[row * k + col] = sum;
}
void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  un_kernel<<<dim3((k + T - 1) / T, (m + T - 1) / T), dim3(T, T)>>>(A, B, C, m, n, k);
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
