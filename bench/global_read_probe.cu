// Which of the profiler's counters see each way a kernel can read global memory: plain loads,
// loads through a generic pointer, atomics that return the old value, cp.async, bulk copies
// (cuda::memcpy_async with a barrier), cooperative groups' memcpy_async, __ldg/__ldcs, and an
// atomic whose result is unused. Each kernel computes a 64 x 64 product with n = 256 the rows way,
// so a kernel that reads all its operands from global memory reads 2n values per thread.
// The technique check's metrics (common/harness/protocol/harness_protocol.h, gpu_metric) were
// chosen from this run: bench/gpu_session.sh read_counters.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_pipeline.h>

#include <cstdio>
#include <cuda/barrier>
namespace cg = cooperative_groups;
// A cuda::barrier in shared memory is initialised by one thread (init), as CUDA's own examples do;
// nvcc warns of the class's constructor, which never runs for __shared__ storage.
#pragma nv_diag_suppress static_var_with_dynamic_init
constexpr int N = 256, M = 64;  // C is M x M, inner N
__global__ void k_ldg(const float* A, const float* B, float* C) {
  int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
  float s = 0;
  for (int i = 0; i < N; ++i) s += A[r * N + i] * B[i * M + c];
  C[r * M + c] = s;
}
__global__ void k_generic(const float* A, const float* B, float* C, int flag) {
  __shared__ float sh[16];
  int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
  float s = 0;
  if (threadIdx.x < 16 && threadIdx.y == 0) sh[threadIdx.x] = 0;
  __syncthreads();
  const float* a = flag ? A : sh;
  const float* b = flag ? B : sh;
  for (int i = 0; i < N; ++i) s += a[r * N + i] * b[i * M + c];
  C[r * M + c] = s;
}
__global__ void k_atom(const float* A, const float* B, float* C) {
  int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
  float s = 0;
  for (int i = 0; i < N; ++i)
    s += __uint_as_float(atomicAdd((unsigned*)(A + r * N + i), 0u)) *
         __uint_as_float(atomicOr((unsigned*)(B + i * M + c), 0u));
  C[r * M + c] = s;
}
__global__ void k_ldgsts(const float* A, const float* B, float* C) {
  __shared__ float a[16][16], b[16][16];
  int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
  float s = 0;
  for (int i = 0; i < N; ++i) {
    __pipeline_memcpy_async(&a[threadIdx.y][threadIdx.x], A + r * N + i, 4);
    __pipeline_memcpy_async(&b[threadIdx.y][threadIdx.x], B + i * M + c, 4);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    s += a[threadIdx.y][threadIdx.x] * b[threadIdx.y][threadIdx.x];
  }
  C[r * M + c] = s;
}
// Row y of the block's A rows copied by one thread of that row with a bulk copy (compute
// capability 9.0: cp.async.bulk), B read element by element.
__global__ void k_bulk(const float* A, const float* B, float* C) {
  __shared__ alignas(16) float a[16][N];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
  if (threadIdx.x == 0 && threadIdx.y == 0) init(&bar, 256);
  __syncthreads();
  if (threadIdx.x == 0)
    cuda::memcpy_async(&a[threadIdx.y][0], A + r * N, cuda::aligned_size_t<16>(sizeof(float) * N),
                       bar);
  bar.arrive_and_wait();
  float s = 0;
  for (int i = 0; i < N; ++i) s += a[threadIdx.y][i] * B[i * M + c];
  C[r * M + c] = s;
}
__global__ void k_cg(const float* A, const float* B, float* C) {
  __shared__ alignas(16) float a[16][N];
  auto block = cg::this_thread_block();
  int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
  cg::memcpy_async(block, &a[0][0], A + blockIdx.y * 16 * N, sizeof(float) * 16 * N);
  cg::wait(block);
  float s = 0;
  for (int i = 0; i < N; ++i) s += a[threadIdx.y][i] * B[i * M + c];
  C[r * M + c] = s;
}
__global__ void k_ldgnc(const float* __restrict__ A, const float* __restrict__ B, float* C) {
  int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
  float s = 0;
  for (int i = 0; i < N; ++i) s += __ldg(A + r * N + i) * __ldcs(B + i * M + c);
  C[r * M + c] = s;
}
__global__ void k_red(float* C) {
  int r = blockIdx.y * 16 + threadIdx.y, c = blockIdx.x * 16 + threadIdx.x;
  atomicAdd(C + r * M + c, 1.0f);
}
int main() {
  float *A, *B, *C;
  cudaMalloc(&A, 4 * M * N);
  cudaMalloc(&B, 4 * M * N);
  cudaMalloc(&C, 4 * M * M);
  cudaMemset(A, 0, 4 * M * N);
  cudaMemset(B, 0, 4 * M * N);
  dim3 g(M / 16, M / 16), b(16, 16);
  k_ldg<<<g, b>>>(A, B, C);
  k_generic<<<g, b>>>(A, B, C, 1);
  k_atom<<<g, b>>>(A, B, C);
  k_ldgsts<<<g, b>>>(A, B, C);
  k_bulk<<<g, b>>>(A, B, C);
  k_cg<<<g, b>>>(A, B, C);
  k_ldgnc<<<g, b>>>(A, B, C);
  k_red<<<g, b>>>(C);
  printf("sync: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
}
