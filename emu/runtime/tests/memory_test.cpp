// Memory: copy directions, pitched and 2-D copies, and out-of-bounds accesses caught by the guard
// pages (death tests: the process reports and exits with status 86).
#include <unistd.h>

#include <cmath>
#include <ctime>

#include "test_util.h"

namespace emu_test {

TEST(Memcpy, DirectionsThatMatchThePointersWork) {
  std::vector<int> host = {1, 2, 3, 4}, back(4, 0);
  int *a = nullptr, *b = nullptr;
  ASSERT_EQ(cudaMalloc(&a, sizeof(int) * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&b, sizeof(int) * 4), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(a, host.data(), 16, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(b, a, 16, cudaMemcpyDeviceToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(back.data(), b, 16, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, host);
  EXPECT_EQ(cudaMemcpy(back.data(), b, 16, cudaMemcpyDefault), cudaSuccess);
  EXPECT_EQ(cudaMemcpyAsync(b, host.data(), 16, cudaMemcpyHostToDevice, 0), cudaSuccess);
  EXPECT_EQ(cudaMemset(b, 0, 16), cudaSuccess);
  EXPECT_EQ(to_host(b, 4), std::vector<int>(4, 0));
  cudaFree(a);
  cudaFree(b);
}

// The harness names the case it runs; labgrade ties each diagnostic to its case by that id.
TEST(Memcpy, DiagnosticsCarryTheCaseTheHarnessNamed) {
  std::vector<int> host(4, 0);
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, sizeof(int) * 4), cudaSuccess);
  size_t mark = report_size();
  emu::set_diagnostic_case("g1_c517x300x263");
  EXPECT_EQ(cudaMemcpy(host.data(), d, 16, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  emu::set_diagnostic_case("");
  EXPECT_NE(report_since(mark).find(
                "not device memory\", \"case\": \"g1_c517x300x263\"}"),
            std::string::npos)
      << report_since(mark);
  mark = report_size();
  EXPECT_EQ(cudaMemcpy(host.data(), d, 16, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(report_since(mark).find("\"case\""), std::string::npos) << report_since(mark);
  cudaGetLastError();
  cudaFree(d);
}

__device__ int copied_through_its_address;

// Valid CUDA the CPU backend does not carry out (its record of a function cannot replay a copy into
// a variable's address): said as unsupported, not as arguments swapped.
TEST(Memcpy, ThroughASymbolAddressIsUnsupported) {
  int* address = nullptr;
  ASSERT_EQ(cudaGetSymbolAddress(reinterpret_cast<void**>(&address), copied_through_its_address),
            cudaSuccess);
  const int value = 7;
  const size_t mark = report_size();
  EXPECT_EQ(cudaMemcpy(address, &value, sizeof value, cudaMemcpyHostToDevice),
            cudaErrorNotSupported);
  const std::string report = report_since(mark);
  EXPECT_NE(report.find("\"kind\": \"unsupported_copy\""), std::string::npos) << report;
  EXPECT_NE(report.find("use cudaMemcpyToSymbol"), std::string::npos) << report;
  cudaGetLastError();
  ASSERT_EQ(cudaMemcpyToSymbol(copied_through_its_address, &value, sizeof value), cudaSuccess);
  EXPECT_EQ(copied_through_its_address, 7);
}

TEST(Memcpy, ContradictoryDirectionIsBadCopy) {
  std::vector<int> host(4, 0);
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, sizeof(int) * 4), cudaSuccess);
  size_t mark = report_size();
  // The classic swap of arguments: destination and source exchanged.
  EXPECT_EQ(cudaMemcpy(host.data(), d, 16, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  std::string report = report_since(mark);
  EXPECT_NE(report.find("{\"kind\": \"bad_copy\", \"call\": \"cudaMemcpy\", \"detail\": "
                        "\"cudaMemcpyHostToDevice but the destination is not device memory\"}"),
            std::string::npos)
      << report;
  mark = report_size();
  EXPECT_EQ(cudaMemcpy(d, host.data(), 16, cudaMemcpyDeviceToHost), cudaErrorInvalidValue);
  EXPECT_NE(report_since(mark).find("the destination is device memory"), std::string::npos);
  mark = report_size();
  EXPECT_EQ(cudaMemcpy(d, host.data(), 20, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
  EXPECT_NE(report_since(mark).find("starts at offset 0 of a 16-byte buffer and runs past its end"),
            std::string::npos);
  EXPECT_EQ(cudaMemset(host.data(), 0, 16), cudaErrorInvalidValue);
  EXPECT_EQ(cudaMemcpy(d, host.data(), 16, static_cast<cudaMemcpyKind>(7)),
            cudaErrorInvalidMemcpyDirection);
  EXPECT_EQ(cudaFree(host.data()), cudaErrorInvalidValue);
  (void)cudaGetLastError();
  cudaFree(d);
}

TEST(Memory, PointerAttributesSayWhereMemoryLives) {
  int host = 0;
  int *device = nullptr, *managed = nullptr, *pinned = nullptr;
  ASSERT_EQ(cudaMalloc(&device, 64), cudaSuccess);
  ASSERT_EQ(cudaMallocManaged(&managed, 64), cudaSuccess);
  ASSERT_EQ(cudaMallocHost(&pinned, 64), cudaSuccess);
  cudaPointerAttributes a{};
  ASSERT_EQ(cudaPointerGetAttributes(&a, device + 3), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeDevice);
  EXPECT_EQ(a.hostPointer, nullptr);
  ASSERT_EQ(cudaPointerGetAttributes(&a, managed), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeManaged);
  ASSERT_EQ(cudaPointerGetAttributes(&a, pinned), cudaSuccess);
  EXPECT_EQ(a.type, cudaMemoryTypeHost);
  ASSERT_EQ(cudaPointerGetAttributes(&a, &host), cudaSuccess);  // as CUDA 11 and later
  EXPECT_EQ(a.type, cudaMemoryTypeUnregistered);
  EXPECT_EQ(a.devicePointer, nullptr);
  EXPECT_EQ(cudaPointerGetAttributes(nullptr, device), cudaErrorInvalidValue);
  (void)cudaGetLastError();
  cudaFree(device);
  cudaFree(managed);
  cudaFreeHost(pinned);
}

TEST(Memcpy, PitchedAllocationAnd2DCopies) {
  const size_t width = 5, height = 3;  // floats
  float* d = nullptr;
  size_t pitch = 0;
  ASSERT_EQ(cudaMallocPitch(&d, &pitch, width * sizeof(float), height), cudaSuccess);
  EXPECT_EQ(pitch, 512u);
  std::vector<float> host(width * height);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<float>(i);
  ASSERT_EQ(cudaMemcpy2D(d, pitch, host.data(), width * sizeof(float), width * sizeof(float),
                         height, cudaMemcpyHostToDevice),
            cudaSuccess);
  // Row 2 starts one pitch further, not one row of floats further.
  EXPECT_EQ(to_host(reinterpret_cast<float*>(reinterpret_cast<char*>(d) + 2 * pitch), 1)[0], 10.0f);
  // Copy the middle 3 columns back.
  std::vector<float> sub(3 * height);
  ASSERT_EQ(cudaMemcpy2D(sub.data(), 3 * sizeof(float), d + 1, pitch, 3 * sizeof(float), height,
                         cudaMemcpyDeviceToHost),
            cudaSuccess);
  EXPECT_EQ(sub, (std::vector<float>{1, 2, 3, 6, 7, 8, 11, 12, 13}));
  EXPECT_EQ(cudaMemcpy2D(sub.data(), 4, d, pitch, 8, 1, cudaMemcpyDeviceToHost),
            cudaErrorInvalidPitchValue);
  (void)cudaGetLastError();
  cudaFree(d);
}

TEST(Memory, FreshDeviceMemoryIsPoisoned) {
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 3 * sizeof(float)), cudaSuccess);
  EXPECT_TRUE(std::isnan(to_host(d, 3)[2]));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(d) % 4, 0u);
  cudaFree(d);
  void* p = reinterpret_cast<void*>(1);
  EXPECT_EQ(cudaMalloc(&p, 0), cudaSuccess);
  EXPECT_EQ(p, nullptr);
}

__global__ void copy_with_overrun(const float* in, float* out, int n, int read_extra,
                                  int write_extra) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n + read_extra) out[i < n ? i : 0] = in[i];
  if (i < n + write_extra) out[i] = 1.0f;
}

// 29 x 29 floats: 3364 bytes, the size in docs/DESIGN.md's example.
constexpr int kN = 29 * 29;

void launch_overrun(int read_extra, int write_extra) {
  float *in = nullptr, *out = nullptr;
  cudaMalloc(&in, kN * sizeof(float));
  cudaMalloc(&out, kN * sizeof(float));
  emu::launch(copy_with_overrun, (kN + 127) / 128, 128, 0, 0, in, out, kN, read_extra, write_extra);
  cudaDeviceSynchronize();
}

using MemoryDeathTest = testing::Test;

TEST(MemoryDeathTest, ReadOnePastTheEndIsCaught) {
  OrderScope order("forward");  // the child process re-runs this line too
  const size_t mark = report_size();
  EXPECT_EXIT(launch_overrun(1, 0), testing::ExitedWithCode(86),
              "out_of_bounds: read at byte offset 3364 of a 3364-byte buffer in kernel "
              "_ZN8emu_test17copy_with_overrun");
  const std::string report = report_since(mark);
  EXPECT_NE(report.find("{\"kind\": \"out_of_bounds\", \"access\": \"read\", \"address\": \"0x"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("\"buffer_bytes\": 3364, \"offset\": 3364, \"kernel\": "
                        "\"_ZN8emu_test17copy_with_overrunEPKfPfiii\", \"block\": [6, 0, 0], "
                        "\"thread\": [73, 0, 0], \"pc\": \"0x"),
            std::string::npos)
      << report;
}

TEST(MemoryDeathTest, WriteFarPastTheEndIsCaught) {
  const size_t mark = report_size();
  // Several blocks write past the end at once; whichever faults first is reported.
  EXPECT_EXIT(launch_overrun(0, 29 * 16), testing::ExitedWithCode(86),
              "out_of_bounds: write at byte offset [0-9]+ of a 3364-byte buffer");
  EXPECT_NE(report_since(mark).find("\"access\": \"write\""), std::string::npos);
}

__global__ void write_before_start(float* out) { out[-1] = 3.0f; }

TEST(Memory, WriteJustBeforeTheStartIsAGuardOverwrite) {
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 64), cudaSuccess);
  const size_t mark = report_size();
  emu::launch(write_before_start, 1, 1, 0, 0, d);
  const std::string report = report_since(mark);
  EXPECT_NE(report.find("{\"kind\": \"guard_overwritten\""), std::string::npos) << report;
  EXPECT_NE(report.find("\"buffer_bytes\": 64, \"offset\": -4"), std::string::npos) << report;
  // Reported once, not again at cudaFree.
  const size_t mark2 = report_size();
  EXPECT_EQ(cudaFree(d), cudaSuccess);
  EXPECT_EQ(report_since(mark2), "");
}

__global__ void recurse(int depth, int* sink) {
  volatile char frame[512];
  frame[0] = static_cast<char>(depth);
  if (depth > 0) recurse(depth - 1, sink);
  *sink += frame[0];
}

TEST(MemoryDeathTest, FiberStackOverflowIsCaught) {
  int* sink = nullptr;
  ASSERT_EQ(cudaMalloc(&sink, sizeof(int)), cudaSuccess);
  const size_t mark = report_size();
  EXPECT_EXIT(
      {
        emu::launch(recurse, 1, 1, 0, 0, 100000, sink);
        cudaDeviceSynchronize();
      },
      testing::ExitedWithCode(86), "stack_overflow");
  EXPECT_NE(report_since(mark).find("{\"kind\": \"stack_overflow\", \"kernel\": "),
            std::string::npos);
}
// What labgrade's kernel-call stubs read and call (grader/build/device_call_guard.h), by name.
extern "C" __thread unsigned char __emu_kernel_running;
extern "C" [[noreturn]] void __emu_host_call_in_kernel(const char* function,
                                                       uintptr_t return_address);

extern "C" clock_t __emu_device_clock();

__global__ void note_kernel_running(int* seen) { seen[threadIdx.x] = __emu_kernel_running; }

__global__ void read_clocks(long long* elapsed) {
  const long long start = clock64();
  const clock_t c0 = __emu_device_clock();
  volatile float spin = 0;
  for (int i = 0; i < 1000 * static_cast<int>(threadIdx.x); ++i) spin = spin + 1.0f;
  elapsed[2 * threadIdx.x] = clock64() - start;
  elapsed[2 * threadIdx.x + 1] = static_cast<long long>(__emu_device_clock() - c0);
}

__global__ void call_host_function(int* out) {
  if (threadIdx.x == 3) __emu_host_call_in_kernel("strlen", 0x401001);
  out[threadIdx.x] = 1;
}

TEST(KernelCalls, TheStubsFlagIsSetInKernelsOnly) {
  int* seen = to_device(std::vector<int>(4, 0));
  EXPECT_EQ(__emu_kernel_running, 0);
  emu::launch(note_kernel_running, dim3(1), dim3(4), 0, 0, seen);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  EXPECT_EQ(to_host(seen, 4), std::vector<int>(4, 1));
  EXPECT_EQ(__emu_kernel_running, 0);
  cudaFree(seen);
}

// A kernel cannot time itself: its clocks count readings, so a slow run (the counting one) and a
// fast one read the same, whatever work lies between.
TEST(KernelCalls, KernelClocksCountReadingsNotTime) {
  long long* elapsed = to_device(std::vector<long long>(8, -1));
  emu::launch(read_clocks, dim3(1), dim3(4), 0, 0, elapsed);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const std::vector<long long> got = to_host(elapsed, 8);
  for (int t = 0; t < 4; ++t) {
    EXPECT_EQ(got[2 * t], 2000) << "thread " << t;  // two readings between: its own and clock()'s
    EXPECT_EQ(got[2 * t + 1], 2000) << "thread " << t;
  }
  cudaFree(elapsed);
}

TEST(MemoryDeathTest, AHostCallInAKernelIsReportedWithItsPlace) {
  const size_t mark = report_size();
  int* out = to_device(std::vector<int>(8, 0));
  EXPECT_EXIT(
      {
        emu::launch(call_host_function, dim3(2), dim3(8), 0, 0, out);
        cudaDeviceSynchronize();
      },
      testing::ExitedWithCode(86), "host_call_in_kernel: strlen called in kernel");
  const std::string report = report_since(mark);
  EXPECT_NE(report.find("{\"kind\": \"host_call_in_kernel\", \"function\": \"strlen\", "
                        "\"kernel\": \"_ZN8emu_test18call_host_function"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("\"thread\": [3, 0, 0], \"pc\": \"0x401000\""), std::string::npos)
      << report;
  cudaFree(out);
}

}  // namespace emu_test

