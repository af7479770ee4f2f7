// What the two sides of the harness protocol (docs/DESIGN.md, "Harness protocol") both name: the
// harness (common/harness/, compiled by nvcc and by the CPU backend's emu-cxx) writes these,
// labgrade (grader/harness_client/) reads them back and decides on them. One definition for both
// sides, so that a word or a status changed on one side cannot go unnoticed on the other. Plain
// C++17, the standard library only.
#pragma once

#include <string>
#include <vector>

namespace labkit {

// A case line's "status" (CaseOutcome::status in the harness, CaseRun::status in labgrade).
namespace case_status {
inline constexpr const char kOk[] = "ok";
inline constexpr const char kCudaError[] = "cuda_error";
inline constexpr const char kGuardViolation[] = "guard_violation";  // a guard zone was written
inline constexpr const char kInputModified[] = "input_modified";    // A or B changed
// The student's function threw; its message is the case's detail.
inline constexpr const char kStudentException[] = "student_exception";
// The recorded work asked for something the replay does not do (the detail says what).
inline constexpr const char kReplayRefused[] = "replay_refused";
// The record process ended before this case, so there is no plan to replay.
inline constexpr const char kNotRecorded[] = "not_recorded";
// A query exercise's function called what the exercise refuses (the detail says what and why).
inline constexpr const char kRefusedCall[] = "refused_call";
}  // namespace case_status

// The counts of one launch's memory accesses, by their names in a case line's "launches" (the
// CPU backend's counting run; emu's labkit_emu/access_counts.h counts them, labgrade's
// MemoryAccesses holds them).
namespace access_count {
inline constexpr const char kGlobalLoads[] = "global_loads";  // accesses, whatever their width
inline constexpr const char kGlobalLoadBytes[] = "global_load_bytes";
// Each warp charged its busiest thread's loads for every thread, as a GPU's profiler charges them.
inline constexpr const char kWarpGlobalLoadBytes[] = "warp_global_load_bytes";
inline constexpr const char kGlobalStores[] = "global_stores";
inline constexpr const char kGlobalStoreBytes[] = "global_store_bytes";
inline constexpr const char kSharedLoads[] = "shared_loads";
inline constexpr const char kSharedLoadBytes[] = "shared_load_bytes";
inline constexpr const char kSharedStores[] = "shared_stores";
inline constexpr const char kSharedStoreBytes[] = "shared_store_bytes";
inline constexpr const char kBarriers[] = "barriers";  // __syncthreads() passed, per block
inline constexpr const char kStaticSharedBytes[] = "static_shared_bytes";  // the largest block's
}  // namespace access_count

// GPU backend: the profiler metrics counted per kernel launch in a counting run (the harness's
// launch_counters.h writes them, labgrade's gpu_counters.h reads them), in the CSV layout of Nsight
// Compute's table: "ID","Kernel Name","Block Size","Metric Name","Metric Value", one line per
// launch and metric. Each counts SASS instructions executed, per warp, but kBulkCopyBytes.
// Every way a kernel can read global memory is counted (H100, 2026-11-27): kGlobalLoads holds
// LDG and the generic loads that reach global memory, not atomics, cp.async or bulk copies.
namespace gpu_metric {
inline constexpr const char kGlobalLoads[] = "smsp__sass_inst_executed_op_global_ld.sum";
inline constexpr const char kGlobalStores[] = "smsp__sass_inst_executed_op_global_st.sum";
inline constexpr const char kSharedLoads[] = "smsp__sass_inst_executed_op_shared_ld.sum";
inline constexpr const char kSharedStores[] = "smsp__sass_inst_executed_op_shared_st.sum";
// Atomics that return the old value (ATOMG): a read and a write each.
inline constexpr const char kGlobalAtomics[] = "smsp__sass_inst_executed_op_global_atom.sum";
// Atomics whose old value is unused (REDG): a write (a split-K kernel's atomicAdd into C).
inline constexpr const char kGlobalReductions[] = "smsp__sass_inst_executed_op_global_red.sum";
// cp.async (LDGSTS, compute capability 8.0 on): global memory straight into shared memory.
inline constexpr const char kAsyncCopies[] = "smsp__sass_inst_executed_op_ldgsts.sum";
// Bulk copies and the tensor memory accelerator (compute capability 9.0 on): bytes, not
// instructions, as one instruction moves any number of them.
inline constexpr const char kBulkCopyBytes[] =
    "l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum";
// The metrics a GPU of compute capability `major`.x has.
inline std::vector<const char*> MetricsFor(int major) {
  std::vector<const char*> metrics = {kGlobalLoads,  kGlobalStores,  kSharedLoads,
                                      kSharedStores, kGlobalAtomics, kGlobalReductions};
  if (major >= 8) metrics.push_back(kAsyncCopies);
  if (major >= 9) metrics.push_back(kBulkCopyBytes);
  return metrics;
}
// What starts a line that says why nothing was counted (as ncu marks its own errors), then one of
// the words below and ": ", then what failed. labgrade acts on the word, never on the rest.
inline constexpr const char kErrorMark[] = "==ERROR== ";
// This machine cannot count for anyone: no permission to read the GPU's counters (the driver's
// RmProfilingAdminOnly), no CUPTI, or a GPU it cannot count on. Found before any kernel ran.
inline constexpr const char kCannotCountHere[] = "machine";
// This run could not count (the counters busy, a failure while a kernel was counted): the run's
// own trouble, which a machine that counts for others must not turn into an unchecked pass.
inline constexpr const char kCountingFailed[] = "run";
// The counting runs of a machine take turns at its counters by the lock of one file, which
// labgrade makes, in the folder this variable names to the harness.
inline constexpr const char kLockDirVariable[] = "LABKIT_COUNTER_LOCK_DIR";
inline constexpr const char kLockFile[] = "counters.lock";
}  // namespace gpu_metric

// A transfer's "kind" in a case line's "transfers" (the harness's TransferKind, transfer_log.h;
// labgrade's TransferInfo, which decides on them: transfer_check.h).
namespace transfer_kind {
inline constexpr const char kHostToDevice[] = "host_to_device";
inline constexpr const char kDeviceToHost[] = "device_to_host";
inline constexpr const char kDeviceToDevice[] = "device_to_device";
// Device memory copied into a __constant__ variable (cudaMemcpyToSymbol, device to device): a
// kernel's reads of it there are constant loads, which no count of global loads sees.
inline constexpr const char kDeviceToConstant[] = "device_to_constant";
inline constexpr const char kHostToHost[] = "host_to_host";
inline constexpr const char kHostAllocation[] = "host_allocation";  // pinned: a kernel can write it
inline constexpr const char kManagedAllocation[] = "managed_allocation";  // the host can read it
}  // namespace transfer_kind

// How a harness process ends. Its own statuses are 0 (the "done" line written) and these two; the
// others are set by what runs around or inside it, and none of them is one of the harness's. The
// emulator's exit after a memory fault (86, emu/runtime/src/execution/faults.h) is not here:
// labgrade never decides on it, as the student's code in the same process can exit with any status
// it likes; a fault is read from the emulator's diagnostic line and the case it left unreported.
inline constexpr int kHarnessUsageExitCode = 2;  // a command line or response file it cannot use
inline constexpr int kHarnessErrorExitCode = 3;  // the kit's own set-up failed (an "error" line)
// What the sanitizers are told to end with when they find something (compute-sanitizer's
// --error-exitcode, ThreadSanitizer's exitcode): the verdict's evidence, as the program cannot
// change the tool's status without ending the run early (grader/evidence/sanitizer_end.h).
inline constexpr int kComputeSanitizerFoundExitCode = 87;
inline constexpr int kThreadSanitizerFoundExitCode = 88;

// The device-memory budget's first refusal of an allocation (device_memory_budget.h): what was
// asked for and what the process held, reported on the case line ("device_memory_refused") and
// read back by labgrade.
struct MemoryRefusal {
  std::string call;  // cudaMalloc, cudaMallocPitch...
  long long bytes = 0;
  long long in_use_bytes = 0;
  long long limit_bytes = 0;
};

}  // namespace labkit
