// Whether a kernel can reach this process's ordinary host memory (pageable memory access, as with
// HMM or on a Grace Hopper machine). The kit's replay program loads a student's kernels beside its
// own memory, so its promise that device code cannot touch the kit's host state rests on the
// answer being no (docs/THREAT_MODEL.md, "What is not promised yet").
#include <cstdio>
#include <cstdlib>

__global__ void write_42(int* target) { *target = 42; }

int main() {
  int pageable = 0, host_tables = 0;
  cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, 0);
  cudaDeviceGetAttribute(&host_tables, cudaDevAttrPageableMemoryAccessUsesHostPageTables, 0);
  std::printf("cudaDevAttrPageableMemoryAccess=%d UsesHostPageTables=%d\n", pageable, host_tables);
  int* from_malloc = static_cast<int*>(std::malloc(sizeof(int)));
  *from_malloc = 1;
  write_42<<<1, 1>>>(from_malloc);
  const cudaError_t result = cudaDeviceSynchronize();
  std::printf("a kernel writing memory from malloc: %s, the value now %d\n",
              cudaGetErrorName(result), *from_malloc);
  return 0;
}
