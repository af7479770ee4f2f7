// Kernels shared by the barrier tests and the benchmark, in the post-rewrite form: a 16x16 tiled
// matmul (C = A * B, A m x n, B n x k, all multiples of TILE) with switches that plant the two
// classic missing-barrier bugs, and a shared-memory tree reduction with one planted as well.
#pragma once
#include <cuda_runtime.h>

namespace emu_test {
constexpr int TILE = 16;

template <bool kFirstBarrier, bool kSecondBarrier>
__global__ void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  auto& As = emu::block_shared<float[TILE][TILE], 100>();
  auto& Bs = emu::block_shared<float[TILE][TILE], 101>();
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0;
  for (int t = 0; t < n; t += TILE) {
    As[ty][tx] = A[row * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * k + col];
    if (kFirstBarrier) __syncthreads();  // the tiles are complete before anyone reads them
    for (int i = 0; i < TILE; ++i) acc += As[ty][i] * Bs[i][tx];
    if (kSecondBarrier) __syncthreads();  // everyone is done reading before the next load
  }
  C[row * k + col] = acc;
  (void)m;
}

constexpr int REDUCE_THREADS = 256;

template <bool kLoopBarrier>
__global__ void reduce_sum(const float* in, float* out) {
  auto& partial = emu::block_shared<float[REDUCE_THREADS], 102>();
  const int t = threadIdx.x;
  partial[t] = in[blockIdx.x * REDUCE_THREADS + t];
  __syncthreads();
  for (int stride = REDUCE_THREADS / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
    if (kLoopBarrier) __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}
// A strip of C (TILE rows by TILE columns, C = A * B with A TILE x n and B n x TILE) per block,
// through shared tiles and two barriers per tile; every block from `working` on returns at once,
// before any barrier, as the extra blocks of a grid sized far beyond the matrix do.
// (inline: this header is in several of the tests' files.)
inline __global__ void strips_or_idle(const float* A, const float* B, float* C, int n,
                                      unsigned working) {
  if (blockIdx.x >= working) return;
  auto& As = emu::block_shared<float[TILE][TILE], 103>();
  auto& Bs = emu::block_shared<float[TILE][TILE], 104>();
  const int ty = threadIdx.y, tx = threadIdx.x;
  float acc = 0;
  for (int t = 0; t < n; t += TILE) {
    As[ty][tx] = A[ty * n + t + tx];
    Bs[ty][tx] = B[(t + ty) * TILE + tx];
    __syncthreads();
    for (int i = 0; i < TILE; ++i) acc += As[ty][i] * Bs[i][tx];
    __syncthreads();
  }
  C[(blockIdx.x * TILE + ty) * TILE + tx] = acc;
}
}  // namespace emu_test
