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
  // TODO: one thread per element: z[i] = x[i] + y[i] for the thread's i < n.
}

cudaError_t vector_add_on_device(const float* host_x, const float* host_y, float* host_z, int n) {
  // TODO: allocate three device arrays of n floats, copy host_x and host_y to the
  //       device, launch vector_add_kernel over n elements, copy the result back
  //       into host_z and free all three arrays. Check every call with LAB02_CHECK.
  return cudaErrorNotSupported;
}

// ---------------------------------------------------------------------------------------------
// Exercise 2: offset and strided copies.
// ---------------------------------------------------------------------------------------------
__global__ void offset_copy_kernel(const float* in, float* out, int n, int offset) {
  // TODO: out[i] = in[i + offset] for the thread's i < n.
}

__global__ void strided_copy_kernel(const float* in, float* out, int n, int stride) {
  // TODO: out[i] = in[i * stride] for the thread's i < n.
}

// ---------------------------------------------------------------------------------------------
// Exercise 3: float3 three ways.
// ---------------------------------------------------------------------------------------------
__global__ void float3_scale_direct_kernel(const float3* in, float3* out, int n, float s) {
  // TODO: scale the thread's point (x, y and z) by s, for i < n.
}

__global__ void float3_scale_staged_kernel(const float* in, float* out, int n, float s) {
  // TODO: copy the block's 3 * LAB02_BLOCK floats (fewer in the last block) into a
  //       __shared__ buffer with consecutive threads reading consecutive floats, wait
  //       for the whole block, scale the thread's own point in shared memory, wait
  //       again, and write the buffer back out the way it came in.
}

__global__ void aos_to_soa_kernel(const float3* in, float* xs, float* ys, float* zs, int n) {
  // TODO: split the thread's point i < n into xs[i], ys[i] and zs[i].
}

__global__ void soa_scale_kernel(float* xs, float* ys, float* zs, int n, float s) {
  // TODO: scale xs[i], ys[i] and zs[i] by s, in place, for i < n.
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
  // TODO: the thread's column comes from x, its row from y. Inside the matrix, scale
  //       element (row, column), found through the pitch (bytes), not the width.
}

cudaError_t scale_pitched_on_device(const float* host_in, float* host_out, int width, int height,
                                    float s) {
  // TODO: cudaMallocPitch a height x width matrix, cudaMemcpy2D host_in into it
  //       (host rows are width floats apart), launch pitched_scale_kernel over
  //       it, cudaMemcpy2D it back into host_out and free it. Check every call
  //       with LAB02_CHECK.
  return cudaErrorNotSupported;
}

__global__ void matmul_pitched_kernel(const float* A, size_t pitch_a, const float* B,
                                      size_t pitch_b, float* C, size_t pitch_c, int m, int n,
                                      int k) {
  // TODO: lab 01's rows kernel, with every A(r, i), B(i, c) and C(r, c) found through
  //       its own matrix's pitch.
}
