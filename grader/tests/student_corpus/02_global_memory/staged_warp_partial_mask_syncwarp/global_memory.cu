// Lab 02: global memory.
//
// How data gets to the GPU and back, and how the pattern of a kernel's addresses decides how many
// memory transactions it costs: offset and strided copies, arrays of float3 (directly, staged
// through shared memory, and as a structure of arrays), and 2-D arrays whose rows are padded to a
// pitch. Read handouts/02_global_memory.md first.
#include "global_memory_lab.cuh"

// ---------------------------------------------------------------------------------------------
// Exercise 1: the host side is yours.
// ---------------------------------------------------------------------------------------------
__global__ void vector_add_kernel(const float* x, const float* y, float* z, int n) {
  // BEGIN SOLUTION
  // STARTER: // TODO: one thread per element: z[i] = x[i] + y[i] for the thread's i < n.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] + y[i];  // the last block is partly past the end
  // END SOLUTION
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
  // BEGIN SOLUTION
  // STARTER: // TODO: out[i] = in[i + offset] for the thread's i < n.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  // A warp reads 32 consecutive floats starting at i + offset: unless offset is a multiple of 32
  // they straddle two 128-byte lines, so one warp's read costs two lines' worth of sectors.
  if (i < n) out[i] = in[i + offset];
  // END SOLUTION
}

__global__ void strided_copy_kernel(const float* in, float* out, int n, int stride) {
  // BEGIN SOLUTION
  // STARTER: // TODO: out[i] = in[i * stride] for the thread's i < n.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  // Neighbouring threads read floats `stride` apart: from stride 8 on, each thread's float lies in
  // a 32-byte sector of its own, and 7 of every 8 bytes fetched are thrown away.
  if (i < n) out[i] = in[static_cast<size_t>(i) * stride];
  // END SOLUTION
}

// ---------------------------------------------------------------------------------------------
// Exercise 3: float3 three ways.
// ---------------------------------------------------------------------------------------------
__global__ void float3_scale_direct_kernel(const float3* in, float3* out, int n, float s) {
  // BEGIN SOLUTION
  // STARTER: // TODO: scale the thread's point (x, y and z) by s, for i < n.
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    // Three 4-byte loads 12 bytes apart per thread: a warp's first load touches 384 bytes to use
    // 128 of them (the other two loads then find the same lines in cache, if they are still there).
    const float3 p = in[i];
    out[i] = make_float3(s * p.x, s * p.y, s * p.z);
  }
  // END SOLUTION
}

__global__ void float3_scale_staged_kernel(const float* in, float* out, int n, float s) {
  // each warp stages its own 32 points (96 floats) in shared memory
  __shared__ float buf[3 * LAB02_BLOCK];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int first = blockIdx.x * LAB02_BLOCK + warp * 32;  // this warp's first point
  const int pts = max(0, min(32, n - first));              // points of this warp
  float* w = buf + warp * 96;
  __syncthreads();
  const unsigned m = __ballot_sync(0xffffffffu, lane < pts);
  if (lane < pts) {  // lanes with a point load the warp's floats
    for (int f = lane; f < 3 * pts; f += pts) w[f] = in[3 * static_cast<size_t>(first) + f];
    __syncwarp(m);  // loads visible to the lanes with a point
    const float x = w[3 * lane], y = w[3 * lane + 1], z = w[3 * lane + 2];
    __syncwarp(m);  // all read before any is overwritten
    w[3 * lane] = x * s;
    w[3 * lane + 1] = y * s;
    w[3 * lane + 2] = z * s;
  }
  __syncwarp();  // the whole warp: scaled points visible
  for (int f = lane; f < 3 * pts; f += 32) out[3 * static_cast<size_t>(first) + f] = w[f];
}

__global__ void aos_to_soa_kernel(const float3* in, float* xs, float* ys, float* zs, int n) {
  // BEGIN SOLUTION
  // STARTER: // TODO: split the thread's point i < n into xs[i], ys[i] and zs[i].
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const float3 p = in[i];  // paid once; every later pass over xs, ys, zs is coalesced
    xs[i] = p.x;
    ys[i] = p.y;
    zs[i] = p.z;
  }
  // END SOLUTION
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
  // BEGIN SOLUTION
  // STARTER: // TODO: the thread's column comes from x, its row from y. Inside the matrix, scale
  // STARTER: //       element (row, column), found through the pitch (bytes), not the width.
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  // The padding between width and pitch belongs to nobody: never touch it.
  if (r < height && c < width) pitched_row(M, pitch, r)[c] *= s;
  // END SOLUTION
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
  // BEGIN SOLUTION
  // STARTER: // TODO: lab 01's rows kernel, with every A(r, i), B(i, c) and C(r, c) found through
  // STARTER: //       its own matrix's pitch.
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < m && c < k) {
    const float* a_row = pitched_row(A, pitch_a, r);
    float sum = 0.0f;
    for (int i = 0; i < n; ++i) sum += a_row[i] * pitched_row(B, pitch_b, i)[c];
    pitched_row(C, pitch_c, r)[c] = sum;
  }
  // END SOLUTION
}
