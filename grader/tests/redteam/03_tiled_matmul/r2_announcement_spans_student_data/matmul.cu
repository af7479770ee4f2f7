// Lab 03, both tiled exercises. A stages every row of A and every column of B in a __device__
// array once; each thread then copies its row and column out whole, through a function picked
// from a table built over the row number, so every read of the arrays is at an offset the
// compiler knows. The dot product is the rows kernel's; the tiles are read for show.
// Attack D: a fault on the watched data is not counted when it lies inside the last load the
// instrumentation announced (access_counter.cpp, note_watched_access). A memmove of a
// __constant__ variable onto itself, as long as the distance from it to the end of the student's
// data, is announced by the counting memmove (access_hooks.cpp, note_copy) as one load of that
// whole range, filed as constant memory (not global, however long); glibc's memmove returns at
// once when source and destination are the same. Each copy of a row out of the __device__ arrays
// (as r2_constant_offset_copies_hide_loads) comes right after one: its faults in the sampled
// blocks are then taken as already counted.
#include <cstdint>
#include <cstring>
#include <utility>

#include "matmul_lab.cuh"

constexpr int kMax = 216;
struct Vec {
  float v[kMax];
};
__device__ Vec Arows[kMax];  // Arows[r].v[i] = A[r][i]
__device__ Vec Bcols[kMax];  // Bcols[c].v[i] = B[i][c]

__constant__ char kAnchor[16];

// One "load" from kAnchor to past the end of Arows and Bcols: nothing is read or written.
__device__ __attribute__((noipa)) void move_onto_itself(char* p, const char* q, uintptr_t lo,
                                                        uintptr_t ha, uintptr_t hb) {
  const uintptr_t hi = ha > hb ? ha : hb;
  if (hi > lo) memmove(p, q, hi - lo);
}
__device__ __attribute__((noinline)) void announce() {
  move_onto_itself(kAnchor, kAnchor, reinterpret_cast<uintptr_t>(kAnchor),
                   reinterpret_cast<uintptr_t>(&Arows[kMax]),
                   reinterpret_cast<uintptr_t>(&Bcols[kMax]));
}

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

template <int R>
__device__ void getA(Vec* out) {
  announce();
  *out = Arows[R];
}
template <int R>
__device__ void getB(Vec* out) {
  announce();
  *out = Bcols[R];
}
using Getter = void (*)(Vec*);
template <int... I>
__device__ void fetch(bool a, int which, Vec* out, std::integer_sequence<int, I...>) {
  static constexpr Getter ta[] = {getA<I>...};
  static constexpr Getter tb[] = {getB<I>...};
  (a ? ta : tb)[which](out);
}

__global__ void stage_kernel(const float* A, const float* B, int m, int n, int k) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;  // 0..max(n,k)
  const int y = blockIdx.y * blockDim.y + threadIdx.y;  // 0..max(m,n)
  if (y < m && x < n) Arows[y].v[x] = A[y * n + x];
  if (y < n && x < k) Bcols[x].v[y] = B[y * k + x];
}

__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  As[threadIdx.y][threadIdx.x] = 0.0f;
  Bs[threadIdx.y][threadIdx.x] = 0.0f;
  __syncthreads();
  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  if (row >= m || col >= k) return;
  Vec a, b;
  fetch(true, row, &a, std::make_integer_sequence<int, kMax>{});
  fetch(false, col, &b, std::make_integer_sequence<int, kMax>{});
  float sum = 0.0f, z = 0.0f;
  for (int i = 0; i < n; ++i) {
    if (i % 16 == 0) z += As[threadIdx.y][(threadIdx.x + i) % TILE] + Bs[threadIdx.x][i % TILE];
    sum += a.v[i] * b.v[i];
  }
  C[row * k + col] = sum + z;  // z == 0
}

void matmul_tiled_any(const float* A, const float* B, float* C, int m, int n, int k) {
  const dim3 grid((k - 1) / TILE + 1, (m - 1) / TILE + 1);
  if (m > kMax || n > kMax || k > kMax) return matmul_rows(A, B, C, m, n, k);
  const int w = n > k ? n : k, h = m > n ? m : n;
  stage_kernel<<<dim3((w - 1) / TILE + 1, (h - 1) / TILE + 1), dim3(TILE, TILE)>>>(A, B, m, n, k);
  matmul_tiled_any_kernel<<<grid, dim3(TILE, TILE)>>>(A, B, C, m, n, k);
}

void matmul_tiled(const float* A, const float* B, float* C, int m, int n, int k) {
  matmul_tiled_any(A, B, C, m, n, k);
}
