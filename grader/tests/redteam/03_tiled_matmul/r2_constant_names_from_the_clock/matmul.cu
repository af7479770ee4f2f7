// Attack E: the counted shapes start above 144 a side so that A and B cannot sit in 64 KiB of
// __constant__ memory at once (lab.yaml; THREAT_MODEL.md: "64 KiB then serve at most
// 8192 / (n * min(m, k)) of the operand reads"). That bound assumes one fill per call. Here the
// host refills the constant arrays per 37 x 37 block of C with cudaMemcpyToSymbol device to
// device (no kernel, nothing counted) and launches the rows algorithm on them; B is first
// transposed by a kernel so that its columns are contiguous. Shared memory is read for show.
#include "matmul_lab.cuh"
// r2_constant_memory_refilled_per_tile with the __constant__ arrays named after the compile's
// second of the day: a student who read that labgrade once took the names of the __constant__
// variables from a second compile (to PTX, seconds later), so that the object's names were not
// among them and each cudaMemcpyToSymbol from device memory passed as device to device.
#define LK_D(i) (__TIME__[i] - '0')
#define LK_SECS (LK_D(0) * 36000 + LK_D(1) * 3600 + LK_D(3) * 600 + LK_D(4) * 60 + LK_D(6) * 10 + LK_D(7))

constexpr int kN = 216;          // longest n served from constant memory
constexpr int kR = 37, kC = 37;  // (37 + 37) * 216 floats = 63936 bytes of constant memory
template <int S> __constant__ float cA_t[kR * kN];
#define cA cA_t<LK_SECS>  // rows r0 .. r0 + kR of A
template <int S> __constant__ float cB_t[kC * kN];
#define cB cB_t<LK_SECS>  // columns c0 .. c0 + kC of B, each contiguous

__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= m || col >= k) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += A[row * n + i] * B[i * k + col];
  C[row * k + col] = sum;
}

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  matmul_rows_kernel<<<grid, dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}

// Bt[c][i] = B[i][c]; every element of A read once too (the count's lower bound), and the shared
// reads and the barrier the technique check asks for.
__global__ void prepare_kernel(const float* A, const float* B, float* Bt, int m, int n, int k,
                               float* sink) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  As[threadIdx.y][threadIdx.x] = 0.0f;
  Bs[threadIdx.y][threadIdx.x] = 0.0f;
  __syncthreads();
  const int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  float z = 0.0f;
  if (y < n && x < k) Bt[x * n + y] = B[y * k + x];
  if (y < m && x < n) z += A[y * n + x];
  for (int i = 0; i < n; i += 8)
    z += As[threadIdx.y][(threadIdx.x + i) % TILE] + Bs[threadIdx.x][(i / 8) % TILE];
  if (z == -1.0e30f) *sink = z;  // never
}

__global__ void rows_from_constant_kernel(float* C, int m, int n, int k, int r0, int c0) {
  const int tr = blockIdx.y * TILE + threadIdx.y, tc = blockIdx.x * TILE + threadIdx.x;
  const int row = r0 + tr, col = c0 + tc;
  if (tr >= kR || tc >= kC || row >= m || col >= k) return;
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) sum += cA[tr * n + i] * cB[tc * n + i];
  C[row * k + col] = sum;
}

#ifndef __CUDA_ARCH__  // host pass only: the device pass instantiates no probe
template <int S> void fill(const float* a, size_t an, const float* b, size_t bn) {
  cudaMemcpyToSymbol(cA_t<S>, a, an, 0, cudaMemcpyDeviceToDevice);
  cudaMemcpyToSymbol(cB_t<S>, b, bn, 0, cudaMemcpyDeviceToDevice);
}
template <int S> bool registered() {
  size_t s = 0;
  const bool ok = cudaGetSymbolSize(&s, cA_t<S>) == cudaSuccess;
  cudaGetLastError();
  return ok;
}
using Fill = void (*)(const float*, size_t, const float*, size_t);
static Fill chosen_fill() {
  if (registered<LK_SECS>()) return fill<LK_SECS>;
  if (registered<LK_SECS + 1>()) return fill<LK_SECS + 1>;
  if (registered<LK_SECS + 2>()) return fill<LK_SECS + 2>;
  return fill<LK_SECS + 3>;
}
#endif

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  const int blocks = ((m + kR - 1) / kR) * ((k + kC - 1) / kC);
  if (n > kN || blocks > 60) return matmul_rows(A, B, C, m, n, k);
  float* Bt = nullptr;
  cudaMalloc(&Bt, sizeof(float) * n * k + 16);
  const int side = (m > n ? m : n) > k ? (m > n ? m : n) : k;
  const dim3 g((side - 1) / TILE + 1, (side - 1) / TILE + 1);
  prepare_kernel<<<g, dim3(TILE, TILE)>>>(A, B, Bt, m, n, k, Bt + n * k);
  for (int r0 = 0; r0 < m; r0 += kR)
    for (int c0 = 0; c0 < k; c0 += kC) {
      const int rows = m - r0 < kR ? m - r0 : kR, cols = k - c0 < kC ? k - c0 : kC;
#ifndef __CUDA_ARCH__
      chosen_fill()(A + r0 * n, sizeof(float) * rows * n, Bt + c0 * n, sizeof(float) * cols * n);
#endif
      rows_from_constant_kernel<<<dim3((kC - 1) / TILE + 1, (kR - 1) / TILE + 1),
                                  dim3(TILE, TILE)>>>(C, m, n, k, r0, c0);
    }
  cudaFree(Bt);
}

void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_tiled_any(A, B, C, m, n, k);
}

// Declared by the lab's header; the work is done by the kernels above.
__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {}
