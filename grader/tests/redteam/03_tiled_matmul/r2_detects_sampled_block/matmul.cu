// Attack F: tell a watched block from the others, and load honestly only there.
// In a watched block the emulator carries out a faulting `rep movs` on the student's data itself
// (emulated_access.cpp, repeated_string), one byte at a time, forward. g++ copies a 320-byte struct
// with `rep movsq`; copied onto itself 4 bytes further on (an overlapping struct assignment), the
// CPU moves 8 bytes per step, the emulator 1: the bytes that come out differ. Thread 0 of each
// block makes that copy in a __device__ probe of the block's own; where the bytes are the
// emulator's, the block runs the rows algorithm from A and B (every load counted); everywhere else
// each thread copies its row and column out of __device__ arrays at offsets the compiler knows
// (uncounted, as r2_constant_offset_copies_hide_loads).
#include <utility>

#include "matmul_lab.cuh"

constexpr int kMax = 216;
struct Vec {
  float v[kMax];
};
__device__ Vec Arows[kMax];  // Arows[r].v[i] = A[r][i]
__device__ Vec Bcols[kMax];  // Bcols[c].v[i] = B[i][c]

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
  *out = Arows[R];
}
template <int R>
__device__ void getB(Vec* out) {
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

struct Blob {
  unsigned long long q[40];
};
constexpr int kSlots = 1024;
struct Probe {
  unsigned long long q[48];
};
__device__ Probe probes[kSlots];

// True where the copy came out as the emulator makes it (bytes 4.. repeating bytes 0..3).
__device__ __attribute__((noinline)) bool emulated_copy(unsigned slot, unsigned long long seed) {
  Probe& p = probes[slot];
  // Every byte of the probe distinct: byte j of word i is base byte j + i.
  const unsigned long long base = 0x0706050403020100ull + 0x0808080808080808ull * (seed % 16);
  for (int i = 0; i < 48; ++i) p.q[i] = base + (unsigned long long)i * 0x0101010101010101ull;
  *reinterpret_cast<Blob*>(reinterpret_cast<char*>(&p) + 4) = *reinterpret_cast<Blob*>(&p);
  const unsigned long long low = base & 0xffffffffull;
  return p.q[20] == (low | low << 32);
}

__global__ void matmul_tiled_any_kernel(const float* A, const float* B, float* C, int m, int n,
                                        int k) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  __shared__ int watched;
  As[threadIdx.y][threadIdx.x] = 0.0f;
  Bs[threadIdx.y][threadIdx.x] = 0.0f;
  const unsigned block = blockIdx.y * gridDim.x + blockIdx.x;
  if (threadIdx.x == 0 && threadIdx.y == 0)
    watched = emulated_copy(block % kSlots, block + 77u * n);
  __syncthreads();
  const int row = blockIdx.y * TILE + threadIdx.y;
  const int col = blockIdx.x * TILE + threadIdx.x;
  if (row >= m || col >= k) return;
  float sum = 0.0f, z = 0.0f;
  if (watched) {
    for (int i = 0; i < n; ++i) {
      if (i % 16 == 0) z += As[threadIdx.y][(threadIdx.x + i) % TILE] + Bs[threadIdx.x][i % TILE];
      sum += A[row * n + i] * B[i * k + col];
    }
  } else {
    Vec a, b;
    fetch(true, row, &a, std::make_integer_sequence<int, kMax>{});
    fetch(false, col, &b, std::make_integer_sequence<int, kMax>{});
    for (int i = 0; i < n; ++i) {
      if (i % 16 == 0) z += As[threadIdx.y][(threadIdx.x + i) % TILE] + Bs[threadIdx.x][i % TILE];
      sum += a.v[i] * b.v[i];
    }
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
