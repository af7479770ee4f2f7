// Lab 02, global memory: the frozen interface.
//
// DO NOT MODIFY THIS FILE. The grader compiles your global_memory.cu against this exact header and
// calls the functions below; changing a signature here changes nothing but your build.
//
// Pointers named `host_*` are host memory; every other pointer is device memory. The grader
// launches the kernels of exercises 2 to 4 itself, with the block sizes given here, and checks
// everything they write, the bytes around their outputs included.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

// A checked call for your host code: returns the call's error from the enclosing function (which
// returns cudaError_t) when the call fails. Calls that return nothing to check (a kernel launch)
// are followed by LAB02_CHECK(cudaGetLastError()).
#define LAB02_CHECK(call)                                   \
  do {                                                      \
    const cudaError_t lab02_status_ = (call);               \
    if (lab02_status_ != cudaSuccess) return lab02_status_; \
  } while (0)

// Threads per block of every one-dimensional launch in this lab.
constexpr int LAB02_BLOCK = 256;
// Block side of the pitched matrix product (LAB02_TILE x LAB02_TILE threads).
constexpr int LAB02_TILE = 16;

// Exercise 1: z = x + y on the GPU, with every CUDA call yours: allocate, copy x and y in, launch
// vector_add_kernel, copy z back, free. host_x, host_y and host_z hold n floats each. Returns
// cudaSuccess, or the first error a call returned.
__global__ void vector_add_kernel(const float* x, const float* y, float* z, int n);
cudaError_t vector_add_on_device(const float* host_x, const float* host_y, float* host_z, int n);

// Exercise 2: out[i] = in[i + offset] for i < n (in holds n + offset floats), and
// out[i] = in[i * stride] for i < n (in holds (n - 1) * stride + 1 floats). One thread per i,
// launched as ceil(n / LAB02_BLOCK) blocks of LAB02_BLOCK threads.
__global__ void offset_copy_kernel(const float* in, float* out, int n, int offset);
__global__ void strided_copy_kernel(const float* in, float* out, int n, int stride);

// Exercise 3: points scaled by s, out[i] = s * in[i] for each of x, y and z, three ways. Launched
// as ceil(n / LAB02_BLOCK) blocks of LAB02_BLOCK threads.
//   direct: one thread reads and writes its own float3.
//   staged: the block's 3 * LAB02_BLOCK floats go through a __shared__ buffer, so that each warp
//           reads and writes consecutive floats (in and out are the same arrays seen as floats).
//   soa:    the points as a structure of arrays: aos_to_soa_kernel splits in into xs, ys and zs,
//           then soa_scale_kernel scales the three arrays.
__global__ void float3_scale_direct_kernel(const float3* in, float3* out, int n, float s);
__global__ void float3_scale_staged_kernel(const float* in, float* out, int n, float s);
__global__ void aos_to_soa_kernel(const float3* in, float* xs, float* ys, float* zs, int n);
__global__ void soa_scale_kernel(float* xs, float* ys, float* zs, int n, float s);

// Exercise 4: pitched 2-D arrays. Row r of a pitched matrix starts `pitch` bytes after row r - 1.
//   pitched_scale_kernel: every element of a height x width matrix times s, in place; launched as
//     LAB02_TILE x LAB02_TILE blocks (x along a row) covering the matrix.
//   scale_pitched_on_device: the same from the host: cudaMallocPitch, cudaMemcpy2D in, the kernel,
//     cudaMemcpy2D back, free. host_in and host_out are dense (width floats a row).
//   matmul_pitched_kernel: C = A * B (lab 01's product, one thread per element of C) with A m x n,
//     B n x k and C m x k each stored with its own pitch; launched like pitched_scale_kernel over
//     C.
__global__ void pitched_scale_kernel(float* M, size_t pitch, int width, int height, float s);
cudaError_t scale_pitched_on_device(const float* host_in, float* host_out, int width, int height,
                                    float s);
__global__ void matmul_pitched_kernel(const float* A, size_t pitch_a, const float* B,
                                      size_t pitch_b, float* C, size_t pitch_c, int m, int n,
                                      int k);
