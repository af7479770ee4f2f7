// The scheduler's ThreadSanitizer annotations (src/race_annotations.h), in a binary built with
// -fsanitize=thread: correct kernels give no report at all (no false alarm from the emulator's own
// bookkeeping, stack reuse or shared-memory poisoning), and each planted missing barrier gives a
// data race between two CUDA threads of one block, inside the kernel.
#include <dlfcn.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels.h"
#include "test_util.h"

// ThreadSanitizer's report hook and report accessors (sanitizer/tsan_interface.h, debugging).
extern "C" {
int __tsan_get_report_data(void* report, const char** description, int* count, int* stack_count,
                           int* mop_count, int* loc_count, int* mutex_count, int* thread_count,
                           int* unique_tid_count, void** sleep_trace, unsigned long trace_size);
int __tsan_get_report_mop(void* report, unsigned long idx, int* tid, void** addr, int* size,
                          int* write, int* atomic, void** trace, unsigned long trace_size);
int __tsan_get_report_thread(void* report, unsigned long idx, int* tid, uint64_t* os_id,
                             int* running, const char** name, int* parent_tid, void** trace,
                             unsigned long trace_size);
}

namespace emu_test {
namespace {

// What the report hook keeps of each report. The hook runs inside ThreadSanitizer, on whichever
// CUDA thread found the race: it must make no access TSan would check (that would report again,
// inside the report, and deadlock), so it writes plain fixed-size records without
// instrumentation or intercepted calls, and the tests make sense of them afterwards.
constexpr int kMaxRecords = 64;
constexpr int kNameBytes = 96;
struct Record {
  char description[32];
  int mops;
  int write[2];
  void* pc[2];
  int threads;
  char thread[2][kNameBytes];
};
Record records[kMaxRecords];
int record_count = 0;

__attribute__((no_sanitize_thread, optimize("no-tree-loop-distribute-patterns"))) void CopyName(
    char* to, const char* from, int capacity) {
  int i = 0;
  for (; from != nullptr && from[i] != '\0' && i + 1 < capacity; ++i) to[i] = from[i];
  to[i] = '\0';
}

struct Access {
  bool write;
  std::string function;  // of the innermost frame
};

struct Race {
  std::string description;
  std::vector<Access> accesses;
  std::vector<std::string> threads;  // the fibers' names
};

std::string FunctionAt(void* pc) {
  Dl_info info{};
  // A return address points just past the call: look one byte back.
  if (dladdr(static_cast<char*>(pc) - 1, &info) != 0 && info.dli_sname != nullptr)
    return info.dli_sname;
  return "?";
}

std::vector<Race> races() {
  std::vector<Race> out;
  const int count = std::min(__atomic_load_n(&record_count, __ATOMIC_ACQUIRE), kMaxRecords);
  for (int r = 0; r < count; ++r) {
    const Record& rec = records[r];
    Race race;
    race.description = rec.description;
    for (int i = 0; i < rec.mops && i < 2; ++i)
      race.accesses.push_back({rec.write[i] != 0, FunctionAt(rec.pc[i])});
    for (int i = 0; i < rec.threads && i < 2; ++i) race.threads.push_back(rec.thread[i]);
    out.push_back(race);
  }
  return out;
}

void clear_races() { __atomic_store_n(&record_count, 0, __ATOMIC_RELEASE); }

}  // namespace
}  // namespace emu_test

// The tiled kernels share their __shared__ storage, so a later test's race is at an address an
// earlier one already reported: keep reporting it. (Equal stacks are still reported once, so each
// test races in a kernel of its own.)
extern "C" const char* __tsan_default_options() {
  return "suppress_equal_addresses=0 exitcode=0";  // the races found here are the point
}

// Called by ThreadSanitizer for every report, before it prints it.
extern "C" __attribute__((no_sanitize_thread)) void __tsan_on_report(void* report) {
  using emu_test::records;
  const int slot = __atomic_fetch_add(&emu_test::record_count, 1, __ATOMIC_ACQ_REL);
  if (slot >= emu_test::kMaxRecords) return;
  emu_test::Record& rec = records[slot];
  const char* description = nullptr;
  int count = 0, stacks = 0, locs = 0, mutexes = 0, unique = 0;
  void* sleep = nullptr;
  __tsan_get_report_data(report, &description, &count, &stacks, &rec.mops, &locs, &mutexes,
                         &rec.threads, &unique, &sleep, 1);
  emu_test::CopyName(rec.description, description, sizeof rec.description);
  for (int i = 0; i < rec.mops && i < 2; ++i) {
    int tid = 0, size = 0, atomic = 0;
    void* addr = nullptr;
    void* trace[1] = {};
    __tsan_get_report_mop(report, i, &tid, &addr, &size, &rec.write[i], &atomic, trace, 1);
    rec.pc[i] = trace[0];
  }
  for (int i = 0; i < rec.threads && i < 2; ++i) {
    int tid = 0, running = 0, parent = 0;
    uint64_t os_id = 0;
    const char* name = nullptr;
    void* trace[1] = {};
    __tsan_get_report_thread(report, i, &tid, &os_id, &running, &name, &parent, trace, 1);
    emu_test::CopyName(rec.thread[i], name, emu_test::kNameBytes);
  }
}

namespace emu_test {

// kernels.h's reduction without its loop barrier, once per thread order (TSan reports a stack
// once per process, so each order needs code of its own). Outside the anonymous namespace, so
// that dladdr can name it.
template <int kOrder>
__global__ void reduce_without_loop_barrier(const float* in, float* out) {
  auto& partial = emu::block_shared<float[REDUCE_THREADS], 200 + kOrder>();
  const int t = threadIdx.x;
  partial[t] = in[blockIdx.x * REDUCE_THREADS + t];
  __syncthreads();
  for (int stride = REDUCE_THREADS / 2; stride > 0; stride /= 2) {
    if (t < stride) partial[t] += partial[t + stride];
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

namespace {

class RaceAnnotations : public testing::Test {
 protected:
  void SetUp() override { clear_races(); }

  // C = A * B with 48 x 64 x 32 matrices: 2 x 3 blocks, four tile phases.
  template <class Kernel>
  void RunMatmul(Kernel kernel) {
    constexpr int m = 48, n = 64, k = 32;
    float* A = to_device(std::vector<float>(m * n, 1.0f));
    float* B = to_device(std::vector<float>(n * k, 2.0f));
    float* C = nullptr;
    ASSERT_EQ(cudaMalloc(&C, sizeof(float) * m * k), cudaSuccess);
    emu::launch(kernel, dim3(k / TILE, m / TILE), dim3(TILE, TILE), 0, 0, A, B, C, m, n, k);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
  }

  template <class Kernel>
  void RunReduction(Kernel kernel) {
    constexpr int blocks = 3;
    float* in = to_device(std::vector<float>(blocks * REDUCE_THREADS, 1.0f));
    float* out = nullptr;
    ASSERT_EQ(cudaMalloc(&out, sizeof(float) * blocks), cudaSuccess);
    emu::launch(kernel, blocks, REDUCE_THREADS, 0, 0, in, out);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    cudaFree(in);
    cudaFree(out);
  }

  // At least one report, every one a data race inside `kernel` between two CUDA threads of
  // one block, one of them writing.
  void ExpectRacesIn(const char* kernel) {
    const std::vector<Race> found = races();
    ASSERT_FALSE(found.empty()) << "no race reported in " << kernel;
    for (const Race& race : found) {
      EXPECT_EQ(race.description, "data-race");
      ASSERT_EQ(race.accesses.size(), 2u);
      EXPECT_TRUE(race.accesses[0].write || race.accesses[1].write);
      for (const Access& a : race.accesses) EXPECT_NE(a.function.find(kernel), std::string::npos) << a.function;
      ASSERT_EQ(race.threads.size(), 2u);
      EXPECT_NE(race.threads[0], race.threads[1]);
      for (const std::string& t : race.threads) {
        EXPECT_EQ(t.rfind("CUDA thread (", 0), 0u) << t;
        EXPECT_NE(t.find("of block ("), std::string::npos) << t;
      }
      // Both in the same block.
      EXPECT_EQ(race.threads[0].substr(race.threads[0].find("of block")),
                race.threads[1].substr(race.threads[1].find("of block")));
    }
  }
};

TEST_F(RaceAnnotations, CorrectKernelsGiveNoReportInAnyOrder) {
  for (const char* o : all_orders()) {
    OrderScope order(o);
    RunMatmul(matmul_tiled<true, true>);
    RunReduction(reduce_sum<true>);
  }
  const std::vector<Race> found = races();
  EXPECT_TRUE(found.empty()) << found.size() << " false alarm(s), the first in "
                             << found.front().accesses.front().function;
}

TEST_F(RaceAnnotations, MissingFirstBarrierIsARaceInTheKernel) {
  RunMatmul(matmul_tiled<false, true>);
  ExpectRacesIn("matmul_tiled");
}

TEST_F(RaceAnnotations, MissingSecondBarrierIsARaceInTheKernel) {
  RunMatmul(matmul_tiled<true, false>);
  ExpectRacesIn("matmul_tiled");
}

// The race a single thread order can hide from the result comparison: TSan sees it in any order.
TEST_F(RaceAnnotations, MissingBarrierInAReductionLoopIsARaceInEveryOrder) {
  using Kernel = void (*)(const float*, float*);
  const Kernel kernels[] = {reduce_without_loop_barrier<0>, reduce_without_loop_barrier<1>,
                            reduce_without_loop_barrier<2>, reduce_without_loop_barrier<3>};
  ASSERT_EQ(all_orders().size(), 4u);
  for (size_t i = 0; i < all_orders().size(); ++i) {
    clear_races();
    OrderScope order(all_orders()[i]);
    RunReduction(kernels[i]);
    ExpectRacesIn("reduce_without_loop_barrier");
  }
}

// A thread that never reaches the barrier its block waits at: the launch fails, and the next
// launch (reusing the worker and its fibers) is still free of false alarms.
__global__ void early_return_before_barrier(float* data) {
  if (threadIdx.x >= 16) return;
  data[threadIdx.x] = 1;
  __syncthreads();
}

TEST_F(RaceAnnotations, ADivergentBarrierLeavesNoStaleStateBehind) {
  float* data = nullptr;
  ASSERT_EQ(cudaMalloc(&data, sizeof(float) * 32), cudaSuccess);
  emu::launch(early_return_before_barrier, 1, 32, 0, 0, data);
  EXPECT_NE(cudaDeviceSynchronize(), cudaSuccess);
  cudaFree(data);
  reset_device();
  RunMatmul(matmul_tiled<true, true>);
  EXPECT_TRUE(races().empty());
}

}  // namespace
}  // namespace emu_test
