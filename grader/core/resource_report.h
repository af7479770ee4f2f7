// resource_report: what `ptxas -v` prints, parsed per kernel, and the checks a lab makes on it
// (lab.yaml `technique`). The text comes from ptxas run alone on the PTX
// (build/submission_build.h), not from the student's program nor from an nvcc run whose front end
// could print the student's #warning text beside it; the student controls only the kernel names.
//
//   ptxas info    : Compiling entry function '_Z19matmul_tiled_kernelPKfS0_Pfiii' for 'sm_90'
//   ptxas info    : Function properties for _Z19matmul_tiled_kernelPKfS0_Pfiii
//       0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 32 registers, used 1 barriers, 2048 bytes smem, 388 bytes cmem[0]
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "drawn_expected.h"
#include "lab_spec.h"
#include "result.h"

namespace labkit {

struct KernelResources {
  std::string mangled;              // "_Z19matmul_tiled_kernelPKfS0_Pfiii"
  std::string arch;                 // "sm_90"
  int64_t registers = 0;            // per thread
  int64_t barriers = 0;             // named barriers used (__syncthreads uses barrier 0)
  int64_t static_shared_bytes = 0;  // "smem": __shared__ arrays (dynamic shared memory excluded)
  int64_t local_bytes = 0;          // stack frame per thread, spill slots included
  int64_t spill_store_bytes = 0;
  int64_t spill_load_bytes = 0;
  int64_t constant_bytes = 0;  // sum of the kernel's cmem[i] (parameters, literals)
  int64_t max_threads = 1024;  // MaxThreadsPerBlock(registers)
};

struct ResourceReport {
  std::vector<KernelResources> kernels;  // entry functions, in ptxas's order
  int64_t global_bytes = 0;              // "N bytes gmem": __device__ variables
  int64_t module_constant_bytes = 0;     // __constant__ variables (cmem[3] on the gmem line)

  // Kernels whose mangled name is `name`, or whose unqualified function name is `name` (every
  // instantiation of a template kernel).
  std::vector<const KernelResources*> Find(const std::string& name) const;
};

// Parses ptxas's -v output. Lines that are not part of the resource report are skipped (nvcc
// warnings, "Compile time" lines). Errors: a number that does not parse, or an entry function
// without its "Used ... registers" line (truncated output).
Result<ResourceReport> ParsePtxasReport(const std::string& text);

// The file the CPU emulator reads (LABKIT_EMU_KERNELS, docs/DESIGN.md):
// {"kernels": {"<mangled>": {"registers": 32, "static_shared_bytes": 2048, "local_bytes": 0,
//  "max_threads": 1024, "barriers": 1}}}. With several architectures, the first entry wins.
nlohmann::json ToEmulatorJson(const ResourceReport& report);

// cudaFuncGetAttributes' maxThreadsPerBlock for a kernel using `registers` per thread on sm_90:
// registers are allocated per warp in units of 256, from 64K per block; at most 1024 threads.
int64_t MaxThreadsPerBlock(int64_t registers);

// The student's kernel `name` as the runtime sees it (drawn_expected.h), from a build's `report`
// (null where there is none, `why_none` saying why); nothing known where `name` is empty. Without
// a report, the CPU backend (`emulated`) runs a kernel with the emulator's model of one nvcc did
// not report (emu/runtime/src/device/kernels.h: 32 registers, no static shared memory, 1024
// threads), as its occupancy API answers for it; on a GPU the kernel is then unknown.
StudentKernel StudentKernelIn(const ResourceReport* report, const std::string& why_none,
                              bool emulated, const std::string& name);

// "matmul_tiled_kernel(float const*, float const*, float*, int, int, int)"; the input itself when
// it is not a mangled C++ name.
std::string DemangleSymbol(const std::string& mangled);

// The unqualified function name: "matmul_tiled_kernel" for
// "_Z19matmul_tiled_kernelPKfS0_Pfiii", "tmpl_kernel" for "_Z11tmpl_kernelILi64EEvPf",
// "kernel" for a C (extern "C") symbol "kernel".
std::string FunctionName(const std::string& mangled);

// The lab's technique requirements checked on `kernel` (unmangled name from lab.yaml). Returns ""
// when they hold, else the student-facing reason. Every instantiation of a template must hold.
std::string CheckTechnique(const ResourceReport& report, const std::string& kernel,
                           const Technique& technique);

}  // namespace labkit
