// The runtime entry points the harness wraps at link time: labgrade links every submission with
// `ld --wrap=SYMBOL` for each name below (SubmissionBuilder::LinkCommand), so the student's calls
// of SYMBOL reach the harness's __wrap_SYMBOL, which notes the call and hands it on to
// __real_SYMBOL. The harness's own calls are wrapped too; the wrappers only note what happens while
// a capture is open around the student's function (launch_log.h, transfer_log.h).
//
// One table for both sides: the link line is built from it, and each wrapper is defined under the
// same name (the GPU wrappers by their plain C names, the CPU backend's through the macros here,
// whose values are the mangled C++ names of emu's runtime functions). A name without a wrapper
// fails the link; a wrapper without a name is caught by link_wraps_test.
//
// Plain C++ with no CUDA types: labgrade, which builds the link line, includes it too.
#pragma once

// CPU backend (emu/runtime): mangled names, as `nm` shows them in libemu_runtime.a.
#define LABKIT_EMU_LAUNCH "_ZN3emu6detail6launchERKNS0_13LaunchRequestE"
#define LABKIT_EMU_MEMCPY "_Z10cudaMemcpyPvPKvm14cudaMemcpyKind"
#define LABKIT_EMU_MEMCPY_ASYNC "_Z15cudaMemcpyAsyncPvPKvm14cudaMemcpyKindP11CUstream_st"
#define LABKIT_EMU_MEMCPY_2D "_Z12cudaMemcpy2DPvmPKvmmm14cudaMemcpyKind"
#define LABKIT_EMU_MEMCPY_2D_ASYNC "_Z17cudaMemcpy2DAsyncPvmPKvmmm14cudaMemcpyKindP11CUstream_st"
#define LABKIT_EMU_COPY_TO_SYMBOL "_ZN3emu6detail14copy_to_symbolEPvmPKvmm14cudaMemcpyKind"
#define LABKIT_EMU_COPY_FROM_SYMBOL "_ZN3emu6detail16copy_from_symbolEPvPKvmmm14cudaMemcpyKind"
#define LABKIT_EMU_MALLOC_HOST "_Z14cudaMallocHostPPvm"
#define LABKIT_EMU_HOST_ALLOC "_Z13cudaHostAllocPPvmj"
#define LABKIT_EMU_MALLOC_MANAGED "_Z17cudaMallocManagedPPvmj"
#define LABKIT_EMU_MALLOC "_Z10cudaMallocPPvm"
#define LABKIT_EMU_MALLOC_PITCH "_Z15cudaMallocPitchPPvPmmm"
#define LABKIT_EMU_FREE "_Z8cudaFreePv"
#define LABKIT_EMU_MEMSET "_Z10cudaMemsetPvim"
#define LABKIT_EMU_MEMSET_ASYNC "_Z15cudaMemsetAsyncPvimP11CUstream_st"
#define LABKIT_EMU_FUNC_SET_ATTRIBUTE "_Z20cudaFuncSetAttributePKv17cudaFuncAttributei"
#define LABKIT_EMU_OCCUPANCY_ACTIVE_BLOCKS "_Z45cudaOccupancyMaxActiveBlocksPerMultiprocessorPiPKvim"
#define LABKIT_EMU_MAX_POTENTIAL_BLOCK_SIZE "_ZN3emu6detail24max_potential_block_sizeEPiS1_PKvPFmS3_iES3_i"
#define LABKIT_EMU_GET_DEVICE_PROPERTIES "_Z23cudaGetDevicePropertiesP14cudaDevicePropi"
#define LABKIT_EMU_DEVICE_GET_ATTRIBUTE "_Z22cudaDeviceGetAttributePi14cudaDeviceAttri"
#define LABKIT_EMU_FUNC_GET_ATTRIBUTES "_Z21cudaFuncGetAttributesP18cudaFuncAttributesPKv"

namespace labkit {

// GPU backend: CUDA's static runtime. Each copy that has a per-thread-default-stream twin
// (_ptds/_ptsz, what --default-stream per-thread compiles to) lists the twin as well: a student can
// declare and call it by that name.
inline constexpr const char* kGpuLinkWraps[] = {
    // Launches (launch_wrap_gpu.cu).
    "__cudaLaunchKernel", "__cudaLaunchKernel_ptsz", "__cudaGetKernel", "cudaLaunchKernel",
    "cudaLaunchKernel_ptsz",
    // Other device work a record run's plan holds (device_work_wrap_gpu.cu).
    "cudaMemset", "cudaMemset_ptds", "cudaMemsetAsync", "cudaMemsetAsync_ptsz", "cudaMemset2D",
    "cudaMemset2DAsync", "cudaFuncSetAttribute", "cudaLaunchKernelExC",
    "cudaLaunchCooperativeKernel",
    // Copies (transfer_wrap_gpu.cu).
    "cudaMemcpy", "cudaMemcpy_ptds", "cudaMemcpyAsync", "cudaMemcpyAsync_ptsz", "cudaMemcpy2D",
    "cudaMemcpy2D_ptds", "cudaMemcpy2DAsync", "cudaMemcpy2DAsync_ptsz", "cudaMemcpy3D",
    "cudaMemcpy3D_ptds", "cudaMemcpy3DAsync", "cudaMemcpy3DAsync_ptsz", "cudaMemcpyToSymbol",
    "cudaMemcpyToSymbol_ptds", "cudaMemcpyToSymbolAsync", "cudaMemcpyToSymbolAsync_ptsz",
    "cudaMemcpyFromSymbol", "cudaMemcpyFromSymbol_ptds", "cudaMemcpyFromSymbolAsync",
    "cudaMemcpyFromSymbolAsync_ptsz", "cudaMemcpyFromArray", "cudaMemcpyFromArray_ptds",
    "cudaMemcpyFromArrayAsync", "cudaMemcpyFromArrayAsync_ptsz", "cudaMemcpy2DFromArray",
    "cudaMemcpy2DFromArray_ptds", "cudaMemcpy2DFromArrayAsync", "cudaMemcpy2DFromArrayAsync_ptsz",
    "cudaMemcpyBatchAsync", "cudaMemcpyBatchAsync_ptsz",
    // Memory the host can read (transfer_wrap_gpu.cu).
    "cudaMallocHost", "cudaHostAlloc", "cudaHostRegister",
    // Device memory, held to the budget (device_memory_wrap_gpu.cu); managed memory is also noted.
    "cudaMalloc", "cudaMallocAsync", "cudaMallocAsync_ptsz", "cudaMallocFromPoolAsync",
    "cudaMallocFromPoolAsync_ptsz", "cudaMallocManaged", "cudaMallocPitch", "cudaMalloc3D",
    "cudaFree", "cudaFreeAsync", "cudaFreeAsync_ptsz",
    // Device variables as the program registers them (registered_variables_gpu.cu).
    "__cudaRegisterVar",
    // The occupancy API, noted where an exercise refuses it (occupancy_wrap_gpu.cu).
    "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    "cudaOccupancyAvailableDynamicSMemPerBlock",
    // What the device says of a block's size, answered for the device a query is shown
    // (device_query_wrap_gpu.cu, presented_device.cuh).
    "cudaGetDeviceProperties", "cudaDeviceGetAttribute", "cudaFuncGetAttributes"};

// CPU backend: emu's runtime (launch_hook_emu.cpp, transfer_hook_emu.cpp: copies, allocations,
// memsets and kernel attributes; occupancy_hook_emu.cpp: the occupancy API;
// device_query_hook_emu.cpp: what the device says of a block's size).
inline constexpr const char* kEmuLinkWraps[] = {LABKIT_EMU_LAUNCH,
                                                LABKIT_EMU_MEMCPY,
                                                LABKIT_EMU_MEMCPY_ASYNC,
                                                LABKIT_EMU_MEMCPY_2D,
                                                LABKIT_EMU_MEMCPY_2D_ASYNC,
                                                LABKIT_EMU_COPY_TO_SYMBOL,
                                                LABKIT_EMU_COPY_FROM_SYMBOL,
                                                LABKIT_EMU_MALLOC_HOST,
                                                LABKIT_EMU_HOST_ALLOC,
                                                LABKIT_EMU_MALLOC_MANAGED,
                                                LABKIT_EMU_MALLOC,
                                                LABKIT_EMU_MALLOC_PITCH,
                                                LABKIT_EMU_FREE,
                                                LABKIT_EMU_MEMSET,
                                                LABKIT_EMU_MEMSET_ASYNC,
                                                LABKIT_EMU_FUNC_SET_ATTRIBUTE,
                                                LABKIT_EMU_OCCUPANCY_ACTIVE_BLOCKS,
                                                LABKIT_EMU_MAX_POTENTIAL_BLOCK_SIZE,
                                                LABKIT_EMU_GET_DEVICE_PROPERTIES,
                                                LABKIT_EMU_DEVICE_GET_ATTRIBUTE,
                                                LABKIT_EMU_FUNC_GET_ATTRIBUTES};

}  // namespace labkit
