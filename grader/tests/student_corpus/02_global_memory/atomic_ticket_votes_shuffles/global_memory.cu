// Lab 02: global memory.
//
// How data gets to the GPU and back, and how the pattern of a kernel's addresses decides how many
// memory transactions it costs: offset and strided copies, arrays of float3 (directly, staged
// through shared memory, and as a structure of arrays), and 2-D arrays whose rows are padded to a
// pitch. Read handouts/02_global_memory.md first.
#include "global_memory_lab.cuh"
#define SYNCW() __syncwarp()
#define WARP_SYNC_MASK(m) __syncwarp(m)
#define CALL_IT(f) f
__device__ unsigned long long g_added;
__device__ double g_sum;
__device__ unsigned g_ticket;
__device__ int g_maxbits;
__device__ float atomicMaxFloat(int* addr, float v) {
  int old = *addr, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= v) break;
    old = atomicCAS(addr, assumed, __float_as_int(v));
  } while (old != assumed);
  return __int_as_float(old);
}

// ---------------------------------------------------------------------------------------------
// Exercise 1: the host side is yours.
// ---------------------------------------------------------------------------------------------
__global__ void vector_add_kernel(const float* x, const float* y, float* z, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    z[i] = x[i] + y[i];
    atomicAdd(&g_added, 1ull);
    atomicAdd(&g_sum, static_cast<double>(z[i]));
  }
  SYNCW();
  CALL_IT(__syncwarp)();
  (__syncwarp)();
}

cudaError_t vector_add_on_device(const float* host_x, const float* host_y, float* host_z, int n) {
  // BEGIN SOLUTION
  // STARTER: // TODO: allocate three device arrays of n floats, copy host_x and host_y to the
  // STARTER: //       device, launch vector_add_kernel over n elements, copy the result back
  // STARTER: //       into host_z and free all three arrays. Check every call with LAB02_CHECK.
  // STARTER: return cudaErrorNotSupported;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  float *x = nullptr, *y = nullptr, *z = nullptr;
  // On an error LAB02_CHECK returns at once: a real program would free what it holds first (an
  // RAII owner does that for you); here an error ends the grading case anyway.
  LAB02_CHECK(cudaMalloc(&x, bytes));
  LAB02_CHECK(cudaMalloc(&y, bytes));
  LAB02_CHECK(cudaMalloc(&z, bytes));
  LAB02_CHECK(cudaMemcpy(x, host_x, bytes, cudaMemcpyHostToDevice));  // (dst, src, ...)
  LAB02_CHECK(cudaMemcpy(y, host_y, bytes, cudaMemcpyHostToDevice));
  const int blocks = (n + LAB02_BLOCK - 1) / LAB02_BLOCK;
  vector_add_kernel<<<blocks, LAB02_BLOCK>>>(x, y, z, n);
  LAB02_CHECK(cudaGetLastError());  // a launch returns nothing: ask whether it was accepted
  // cudaMemcpy waits for the kernel: it runs in the same (default) stream.
  LAB02_CHECK(cudaMemcpy(host_z, z, bytes, cudaMemcpyDeviceToHost));
  LAB02_CHECK(cudaFree(x));
  LAB02_CHECK(cudaFree(y));
  LAB02_CHECK(cudaFree(z));
  return cudaSuccess;
  // END SOLUTION
}

// ---------------------------------------------------------------------------------------------
// Exercise 2: offset and strided copies.
// ---------------------------------------------------------------------------------------------
__global__ void offset_copy_kernel(const float* in, float* out, int n, int offset) {
  // a ticket per thread; atomicInc wraps back to 0 once every thread of the launch has taken one
  const unsigned total = gridDim.x * blockDim.x;
  const unsigned i = atomicInc(&g_ticket, total - 1);
  if (i < static_cast<unsigned>(n)) out[i] = in[i + offset];
}

__global__ void strided_copy_kernel(const float* in, float* out, int n, int stride) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned inside = __ballot_sync(0xffffffffu, i < n);
  if (threadIdx.x % 32 == 0)
    __syncwarp();
  else
    __syncwarp(0xffffffffu);
  if (inside & (1u << (threadIdx.x % 32))) atomicExch(&out[i], in[static_cast<size_t>(i) * stride]);
  WARP_SYNC_MASK(__activemask());
}

// ---------------------------------------------------------------------------------------------
// Exercise 3: float3 three ways.
// ---------------------------------------------------------------------------------------------
__global__ void float3_scale_direct_kernel(const float3* in, float3* out, int n, float s) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float3 p = in[i];
    out[i] = make_float3(s * p.x, s * p.y, s * p.z);
    atomicMaxFloat(&g_maxbits, p.x);
    atomicMax(reinterpret_cast<unsigned*>(&g_maxbits), 0u);
  }
}

__global__ void float3_scale_staged_kernel(const float* in, float* out, int n, float s) {
  __shared__ float buffer[3 * LAB02_BLOCK];
  __shared__ int points_here;
  __shared__ unsigned scaled;
  if (threadIdx.x == 0) {
    points_here = 0;
    scaled = 0;
  }
  __syncthreads();
  const int first_point = blockIdx.x * LAB02_BLOCK;
  if (first_point + static_cast<int>(threadIdx.x) < n) atomicAdd(&points_here, 1);
  __syncthreads();
  const int points = points_here;
  const int floats = 3 * points;
  const float* block_in = in + 3 * static_cast<size_t>(first_point);
  float* block_out = out + 3 * static_cast<size_t>(first_point);
  for (int f = threadIdx.x; f < floats; f += LAB02_BLOCK) buffer[f] = block_in[f];
  __syncthreads();
  if (static_cast<int>(threadIdx.x) < points) {
    float* p = buffer + 3 * threadIdx.x;
    p[0] *= s;
    p[1] *= s;
    p[2] *= s;
    atomicInc(&scaled, 0xffffffffu);
  }
  SYNCW();
  __syncthreads();
  for (int f = threadIdx.x; f < floats; f += LAB02_BLOCK) block_out[f] = buffer[f];
}

__global__ void aos_to_soa_kernel(const float3* in, float* xs, float* ys, float* zs, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const bool mine = i < n;
  if (__all_sync(0xffffffffu, mine) || __any_sync(0xffffffffu, mine)) {
    const unsigned act = __ballot_sync(0xffffffffu, mine);
    if (mine) {
      const float3 p = in[i];
      const int lane = threadIdx.x & 31;
      // neighbour's x, fetched and ignored: a shuffle with the partial mask of lanes inside
      float nb = __shfl_down_sync(act, p.x, 0);
      xs[i] = nb;
      ys[i] = p.y;
      zs[i] = p.z;
      if (__all_sync(act, true)) __syncwarp(act);
      (void)lane;
    }
  }
}

__global__ void soa_scale_kernel(float* xs, float* ys, float* zs, int n, float s) {
  // BEGIN SOLUTION
  // STARTER: // TODO: scale xs[i], ys[i] and zs[i] by s, in place, for i < n.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    // Three arrays, each read by a warp as 32 consecutive floats: three full lines, nothing wasted.
    xs[i] *= s;
    ys[i] *= s;
    zs[i] *= s;
  }
  // END SOLUTION
}

// ---------------------------------------------------------------------------------------------
// Exercise 4: pitched 2-D arrays.
// ---------------------------------------------------------------------------------------------
// Row r of a pitched matrix, as a float pointer: the pitch is in bytes, so step in bytes.
__device__ __host__ inline float* pitched_row(float* base, size_t pitch, int r) {
  return reinterpret_cast<float*>(reinterpret_cast<char*>(base) + r * pitch);
}
__device__ __host__ inline const float* pitched_row(const float* base, size_t pitch, int r) {
  return reinterpret_cast<const float*>(reinterpret_cast<const char*>(base) + r * pitch);
}

__global__ void pitched_scale_kernel(float* M, size_t pitch, int width, int height, float s) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  // lane 0 of each half-warp works out the row's address and shares it with its 15 neighbours
  unsigned long long row = 0;
  if ((threadIdx.x & 15) == 0) row = reinterpret_cast<unsigned long long>(pitched_row(M, pitch, r));
  row = __shfl_sync(0xffffffffu, row, 0, 16);
  if (r < height && c < width) reinterpret_cast<float*>(row)[c] *= s;
}

cudaError_t scale_pitched_on_device(const float* host_in, float* host_out, int width, int height,
                                    float s) {
  // BEGIN SOLUTION
  // STARTER: // TODO: cudaMallocPitch a height x width matrix, cudaMemcpy2D host_in into it
  // STARTER: //       (host rows are width floats apart), launch pitched_scale_kernel over
  // STARTER: //       it, cudaMemcpy2D it back into host_out and free it. Check every call
  // STARTER: //       with LAB02_CHECK.
  // STARTER: return cudaErrorNotSupported;
  const size_t row_bytes = static_cast<size_t>(width) * sizeof(float);
  float* M = nullptr;
  size_t pitch = 0;
  LAB02_CHECK(cudaMallocPitch(reinterpret_cast<void**>(&M), &pitch, row_bytes, height));
  // (dst, dst pitch, src, src pitch, bytes per row, rows, kind): the host side is dense.
  LAB02_CHECK(
      cudaMemcpy2D(M, pitch, host_in, row_bytes, row_bytes, height, cudaMemcpyHostToDevice));
  const dim3 block(LAB02_TILE, LAB02_TILE);
  const dim3 grid((width + LAB02_TILE - 1) / LAB02_TILE, (height + LAB02_TILE - 1) / LAB02_TILE);
  pitched_scale_kernel<<<grid, block>>>(M, pitch, width, height, s);
  LAB02_CHECK(cudaGetLastError());
  LAB02_CHECK(
      cudaMemcpy2D(host_out, row_bytes, M, pitch, row_bytes, height, cudaMemcpyDeviceToHost));
  LAB02_CHECK(cudaFree(M));
  return cudaSuccess;
  // END SOLUTION
}

__global__ void matmul_pitched_kernel(const float* A, size_t pitch_a, const float* B,
                                      size_t pitch_b, float* C, size_t pitch_c, int m, int n,
                                      int k) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  const bool inside = r < m && c < k;
  const unsigned mask = __ballot_sync(0xffffffffu, inside);
  if (inside) {
    const float* a_row = pitched_row(A, pitch_a, r);
    float sum = 0.0f;
    for (int i = 0; i < n; ++i) {
      // lane 0 of the half-warp (column bx*16, always inside when any is) reads A(r, i) for all
      float a = (threadIdx.x == 0) ? a_row[i] : 0.0f;
      a = __shfl_sync(mask, a, 0, 16);
      sum += a * pitched_row(B, pitch_b, i)[c];
    }
    pitched_row(C, pitch_c, r)[c] = sum;
  }
}
