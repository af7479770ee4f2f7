// What the runtime knows about a kernel: its mangled name (dladdr on the function pointer, hence
// -rdynamic) and its resources from the resource report named by LABKIT_EMU_KERNELS (registers,
// static shared memory, ...; defaults when the kernel is not in it), plus the attributes set with
// cudaFuncSetAttribute.
#pragma once
#include <cstddef>
#include <string>

#include "labkit_emu/runtime_types.h"

namespace emu::detail {

struct KernelInfo {
  std::string name;  // mangled; "0x..." when the symbol is not exported
  bool in_report = false;
  int registers = 32;  // what nvcc typically gives a simple kernel
  size_t static_smem = 0;
  size_t local_bytes = 0;
  size_t const_bytes = 0;
  int max_threads = 1024;
  int max_dynamic_smem = 0;  // cudaFuncAttributeMaxDynamicSharedMemorySize
  int carveout = -1;
};

// A stable reference (entries are never removed, only reset by cudaDeviceReset).
KernelInfo& kernel_info(const void* kernel);
cudaFuncAttributes function_attributes(const KernelInfo& k);
void reset_kernel_attributes();
}  // namespace emu::detail
