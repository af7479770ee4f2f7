// What a launch's CUDA threads did to memory, counted by the emulator (docs/DESIGN.md, "Counting
// memory accesses"). Only code compiled with the counting flags (g++'s kernel AddressSanitizer
// instrumentation with out-of-line calls, which the runtime answers instead of a sanitizer) calls
// the runtime on each load and store; counting itself is switched on by LABKIT_EMU_COUNT_ACCESSES.
//
// Not part of the force-included header: the harness reads the counts, student code never needs
// them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace emu {

struct AccessCounts {
  // Inside a cudaMalloc'd (or managed, or pinned host) buffer.
  uint64_t global_loads = 0;  // accesses, whatever their width (a float4 load is one)
  uint64_t global_load_bytes = 0;
  uint64_t global_stores = 0;
  uint64_t global_store_bytes = 0;
  // The global loads as a GPU's profiler charges them: it counts a warp's load instructions, and a
  // count per thread takes each as if every thread of the warp had loaded. So each warp is charged
  // what its busiest thread loaded, times the threads a warp of the block holds on average
  // (grader/harness_client/gpu_counters.cpp's PerThread). Equal to global_load_bytes when every
  // thread of a warp loads alike; more when one thread loads for the rest (operands it then keeps
  // to itself, where no other thread can share them).
  uint64_t warp_global_load_bytes = 0;
  // Inside the block's __shared__ arrays or the launch's dynamic shared memory.
  uint64_t shared_loads = 0;
  uint64_t shared_load_bytes = 0;
  uint64_t shared_stores = 0;
  uint64_t shared_store_bytes = 0;
  // __syncthreads() (and its _count/_and/_or forms) passed, once per block and barrier.
  uint64_t barriers = 0;
  // The bytes of the fixed-size __shared__ arrays one block declared (reached the declaration of),
  // the most of any block: not added up over blocks. With the launch's dynamic shared memory
  // apart, as ptxas reports a kernel's static shared memory.
  uint64_t static_shared_bytes = 0;
  // Anything else a CUDA thread touched: its stack, its parameters, the program's __constant__
  // variables where the harness names them (count_as_constant_memory). The rest of the host's
  // memory counts as global: the student's data where the harness names it
  // (count_as_global_memory), and memory no GPU kernel could reach (a host heap buffer, say).
  uint64_t other_accesses = 0;

  // Adds the counts, and keeps the larger static_shared_bytes.
  AccessCounts& operator+=(const AccessCounts& o);
};

namespace detail {
// A case begins: the counted launches from here on are its (sealed_counts_of_case).
void begin_sealed_case();
// The counts of the case's counted launches, in order, as the emulator sealed them at the end of
// each: in pages no kernel can write, where the kernels launched later in the case cannot change
// them (the harness's own copy of a launch's counts is on the heap). The harness writes these.
std::vector<AccessCounts> sealed_counts_of_case();

// The counts of the last launch made from this OS thread (all zero when it did not run), or null
// when counting is off.
const AccessCounts* last_launch_access_counts();

// [begin, begin + bytes) is global memory for the counts of launches that start after the call,
// as a cudaMalloc'd buffer is: a variable of the student's (`__device__`, `__constant__`, or any
// other, which a kernel on a GPU could only reach in device memory). Without it a kernel that
// copied A and B into such variables would compute from loads no count sees. The harness names
// the student's variables in its replays (common/harness/driver/harness_main.cpp).
void count_as_global_memory(const void* begin, size_t bytes);
// [begin, begin + bytes) is a __constant__ variable, whose loads a GPU's counters do not count as
// global memory either: left out of the counts (other_accesses).
void count_as_constant_memory(const void* begin, size_t bytes);
// Whether `address` lies in a range count_as_constant_memory named.
bool counts_as_constant_memory(const void* address);
// The pages [begin, begin + bytes) (page-aligned: the student's writable data, which labgrade's
// link puts in pages of its own) are unreadable while a counted launch runs, so that every access
// to them is seen, even one the compiler left uninstrumented (a named variable read at an offset
// it knows to be in bounds): each is counted from the faulting instruction's operand size, unless
// the instrumentation counted it already. Counted launches then run on one OS thread.
void watch_during_counted_launches(void* begin, size_t bytes);
}  // namespace detail
}  // namespace emu
