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
// BEGIN SOLUTION
namespace {

// Allocation units that cudaDeviceProp does not list (the same on every GPU from Volta to
// Blackwell): registers go to a warp in blocks of 256, each SM is split into 4 sub-partitions that
// hold whole warps, and shared memory goes to a block in units of 128 bytes (compute capability 8
// and later; 256 before).
constexpr int kRegisterUnit = 256;
constexpr int kSubPartitions = 4;
constexpr size_t kSharedUnit = 128;

size_t round_up(size_t value, size_t unit) { return (value + unit - 1) / unit * unit; }

}  // namespace
// END SOLUTION

int max_active_blocks_per_sm(const void* kernel, int threads_per_block,
                             size_t dynamic_shared_bytes) {
  // BEGIN SOLUTION
  // STARTER: // TODO: read the device's limits (cudaGetDeviceProperties) and the kernel's
  // STARTER: //       resources (cudaFuncGetAttributes), then return the smallest of the four
  // STARTER: //       limits on blocks per SM: warp slots, blocks, registers, shared memory.
  // STARTER: (void)kernel, (void)threads_per_block, (void)dynamic_shared_bytes;
  // STARTER: return 0;
  cudaDeviceProp prop;
  cudaFuncAttributes attr;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess ||
      cudaFuncGetAttributes(&attr, kernel) != cudaSuccess)
    return 0;
  const int warps_per_block = (threads_per_block + prop.warpSize - 1) / prop.warpSize;

  // Warp slots: a block takes whole warps, even when its last warp is not full.
  const int by_threads = prop.maxThreadsPerMultiProcessor / prop.warpSize / warps_per_block;
  const int by_blocks = prop.maxBlocksPerMultiProcessor;

  // Registers: per warp, rounded up to the allocation unit; a sub-partition holds whole warps.
  const int regs_per_warp = static_cast<int>(round_up(attr.numRegs * prop.warpSize, kRegisterUnit));
  int by_registers = INT_MAX;
  if (regs_per_warp > 0) {
    const int warps_per_sub = prop.regsPerMultiprocessor / kSubPartitions / regs_per_warp;
    by_registers = warps_per_sub * kSubPartitions / warps_per_block;
  }

  // Shared memory: static + dynamic + what the runtime reserves per block, in allocation units.
  const size_t smem_per_block = round_up(
      attr.sharedSizeBytes + dynamic_shared_bytes + prop.reservedSharedMemPerBlock, kSharedUnit);
  if (smem_per_block > prop.sharedMemPerBlock + prop.reservedSharedMemPerBlock) return 0;
  const int by_shared = smem_per_block == 0
                            ? INT_MAX  // nothing to hold: no limit (only without a reservation)
                            : static_cast<int>(prop.sharedMemPerMultiprocessor / smem_per_block);

  return std::min({by_threads, by_blocks, by_registers, by_shared});
  // END SOLUTION
}

double theoretical_occupancy(const void* kernel, int threads_per_block,
                             size_t dynamic_shared_bytes) {
  // BEGIN SOLUTION
  // STARTER: // TODO: active warps per SM over the warps an SM can hold (per SM, not per GPU).
  // STARTER: (void)kernel, (void)threads_per_block, (void)dynamic_shared_bytes;
  // STARTER: return 0.0;
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return 0.0;
  const int blocks = max_active_blocks_per_sm(kernel, threads_per_block, dynamic_shared_bytes);
  const int warps_per_block = (threads_per_block + prop.warpSize - 1) / prop.warpSize;
  const int warp_slots = prop.maxThreadsPerMultiProcessor / prop.warpSize;
  return static_cast<double>(blocks * warps_per_block) / warp_slots;
  // END SOLUTION
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
  extern __shared__ float tiles[];
  const int side = c_block_side;
  float* a_tile = tiles;
  float* b_tile = tiles + side * side;
  const int x = threadIdx.x, y = threadIdx.y;
  const int out_row = blockIdx.y * side + y;
  const int out_col = blockIdx.x * side + x;
  const int mine = y * side + x;
  const int lane = mine % 32;
  // the lanes this block has in a warp: a block of 16 threads fills half of one
  const unsigned mask = side * side >= 32 ? 0xffffffffu : (1u << (side * side)) - 1u;
  const int row_lane0 = lane / side * side;  // a row of the tile is `side` consecutive lanes
  float acc = 0.0f;
  for (int base = 0; base < n; base += side) {
    const float a = (out_row < m && base + x < n) ? A[out_row * n + base + x] : 0.0f;
    a_tile[mine] = a;
    b_tile[mine] = (base + y < n && out_col < k) ? B[(base + y) * k + out_col] : 0.0f;
    __syncthreads();
    for (int i = 0; i < side; ++i)
      acc += __shfl_sync(mask, a, row_lane0 + i) * b_tile[i * side + x];
    __syncthreads();
  }
  if (__any_sync(mask, out_row < m && out_col < k) && out_row < m && out_col < k)
    C[out_row * k + out_col] = acc;
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
