// Launches: indexing, shared memory (static, dynamic, poisoning), constant memory, configuration
// errors, pointer checks and atomics.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <numeric>
#include <thread>

#include "test_util.h"

namespace emu_test {

__global__ void write_coordinates(uint3* out) {
  const unsigned block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  const unsigned thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  const unsigned per_block = blockDim.x * blockDim.y * blockDim.z;
  out[2 * (block * per_block + thread)] = threadIdx;
  out[2 * (block * per_block + thread) + 1] = blockIdx;
}

TEST(Launch, ThreeDimensionalIndexing) {
  const dim3 grid(3, 2, 2), block(4, 3, 2);
  const size_t n = 3 * 2 * 2 * 4 * 3 * 2;
  uint3* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 2 * n * sizeof(uint3)), cudaSuccess);
  emu::launch(write_coordinates, grid, block, 0, 0, d);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  const std::vector<uint3> out = to_host(d, 2 * n);
  size_t i = 0;
  for (unsigned bz = 0; bz < 2; ++bz)
    for (unsigned by = 0; by < 2; ++by)
      for (unsigned bx = 0; bx < 3; ++bx)
        for (unsigned tz = 0; tz < 2; ++tz)
          for (unsigned ty = 0; ty < 3; ++ty)
            for (unsigned tx = 0; tx < 4; ++tx, ++i) {
              EXPECT_EQ(out[2 * i].x, tx);
              EXPECT_EQ(out[2 * i].y, ty);
              EXPECT_EQ(out[2 * i].z, tz);
              EXPECT_EQ(out[2 * i + 1].x, bx);
              EXPECT_EQ(out[2 * i + 1].y, by);
              EXPECT_EQ(out[2 * i + 1].z, bz);
            }
  cudaFree(d);
}

__global__ void scale_by(float* out, float factor, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = factor * static_cast<float>(i);
}

// cudaLaunchKernel given the kernel itself: each pointer of `args` read as its parameter's type,
// the launch <<<...>>> would make, and its own error returned.
TEST(Launch, ThroughCudaLaunchKernel) {
  const int n = 70;
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, n * sizeof(float)), cudaSuccess);
  float factor = 2.5f;
  int count = n;
  void* args[] = {&d, &factor, &count};
  ASSERT_EQ(cudaLaunchKernel(scale_by, dim3(3), dim3(32), args), cudaSuccess);
  const std::vector<float> out = to_host(d, n);
  for (int i = 0; i < n; ++i) EXPECT_EQ(out[i], 2.5f * static_cast<float>(i)) << i;
  EXPECT_EQ(cudaLaunchKernel(scale_by, dim3(1), dim3(2048), args), cudaErrorInvalidConfiguration);
  // Its own status, not the last-error state: the refused launch's error stays pending there.
  EXPECT_EQ(cudaLaunchKernel(scale_by, dim3(1), dim3(32), args), cudaSuccess) << "not sticky";
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  ASSERT_EQ(cudaFree(d), cudaSuccess);
}

// Each block marks itself done after a little work of its own.
__global__ void mark_block_done(unsigned* done, unsigned work) {
  volatile unsigned sink = 0;
  for (unsigned i = 0; i < work; ++i) sink = sink + i;
  if (threadIdx.x == 0) done[blockIdx.x] = 1;
}

// Every block has run when a launch returns, also a launch that needs more OS threads than any
// before it: the pool then adds threads while its others wait for the next launch. A thread added
// so once took the last launch for a new one, counted itself done in the next before it began, and
// the launch returned while another thread still ran a block (a 16 x 16 block of C left
// unwritten, on a 16-core machine under load). The pool grows one thread a launch here, each
// growth a chance for that, on a machine kept busy by spinning threads so that the launching
// thread is often descheduled between adding a thread and handing out the launch.
TEST(Launch, EveryBlockHasRunWhenThePoolGrows) {
  const emu::detail::Config saved = emu::detail::config();
  std::atomic<bool> stop{false};
  std::vector<std::thread> load;
  for (unsigned i = 0; i < 2 * std::max(1u, std::thread::hardware_concurrency()); ++i)
    load.emplace_back([&stop] {
      while (!stop.load(std::memory_order_relaxed)) {
      }
    });
  constexpr unsigned kMostThreads = 96;
  unsigned* done = nullptr;
  ASSERT_EQ(cudaMalloc(&done, 4 * kMostThreads * sizeof(unsigned)), cudaSuccess);
  for (unsigned threads = 2; threads <= kMostThreads; ++threads) {
    emu::detail::ConfigWrite()->threads = threads;
    const unsigned blocks = 4 * threads;
    ASSERT_EQ(cudaMemset(done, 0, blocks * sizeof(unsigned)), cudaSuccess);
    emu::launch(mark_block_done, dim3(blocks), dim3(32), 0, 0, done, 2000u);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const std::vector<unsigned> marks = to_host(done, blocks);
    for (unsigned b = 0; b < blocks; ++b)
      ASSERT_EQ(marks[b], 1u) << "block " << b << " of " << blocks << ", " << threads
                              << " OS threads";
  }
  stop = true;
  for (std::thread& t : load) t.join();
  *emu::detail::ConfigWrite() = saved;
  cudaFree(done);
}

// Each block reverses its slice through static shared memory, and records what the shared array
// held before anyone wrote it (the poison).
__global__ void reverse_in_shared(const int* in, int* out, unsigned* first_bits) {
  auto& tile = emu::block_shared<int[64], 0>();
  const int t = threadIdx.x;
  if (t == 0) first_bits[blockIdx.x] = static_cast<unsigned>(tile[63]);
  __syncthreads();
  tile[t] = in[blockIdx.x * 64 + t];
  __syncthreads();
  out[blockIdx.x * 64 + t] = tile[63 - t];
}

TEST(SharedMemory, StaticIsPerBlockAndPoisoned) {
  std::vector<int> in(4 * 64);
  std::iota(in.begin(), in.end(), 0);
  int* d_in = to_device(in);
  int* d_out = nullptr;
  unsigned* d_bits = nullptr;
  ASSERT_EQ(cudaMalloc(&d_out, in.size() * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_bits, 4 * sizeof(unsigned)), cudaSuccess);
  emu::launch(reverse_in_shared, 4, 64, 0, 0, d_in, d_out, d_bits);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto out = to_host(d_out, in.size());
  for (int b = 0; b < 4; ++b)
    for (int t = 0; t < 64; ++t) EXPECT_EQ(out[b * 64 + t], b * 64 + 63 - t);
  // Every block, not only the first on each OS thread, starts from 0xFF bytes.
  for (unsigned bits : to_host(d_bits, 4)) EXPECT_EQ(bits, 0xFFFFFFFFu);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_bits);
}

__global__ void dynamic_shared_sum(const float* in, float* out, float* poison) {
  float* buffer = emu::dynamic_shared<float>();
  const unsigned t = threadIdx.x;
  if (t == 0) poison[blockIdx.x] = buffer[blockDim.x - 1];
  __syncthreads();
  buffer[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  if (t == 0) {
    float sum = 0;
    for (unsigned i = 0; i < blockDim.x; ++i) sum += buffer[i];
    out[blockIdx.x] = sum;
  }
}

TEST(SharedMemory, DynamicHasTheLaunchSizeAndIsPoisoned) {
  const int blocks = 3, threads = 100;
  std::vector<float> in(blocks * threads, 1.5f);
  float* d_in = to_device(in);
  float *d_out = nullptr, *d_poison = nullptr;
  ASSERT_EQ(cudaMalloc(&d_out, blocks * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d_poison, blocks * sizeof(float)), cudaSuccess);
  emu::launch(dynamic_shared_sum, blocks, threads, threads * sizeof(float), 0, d_in, d_out,
              d_poison);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  for (float s : to_host(d_out, blocks)) EXPECT_EQ(s, 150.0f);
  for (float p : to_host(d_poison, blocks)) EXPECT_TRUE(std::isnan(p));
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_poison);
}

TEST(SharedMemory, DynamicOverTheLimitIsInvalidValue) {
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 4 * sizeof(float)), cudaSuccess);
  // 48 KiB is the default limit; more needs cudaFuncSetAttribute.
  emu::launch(dynamic_shared_sum, 1, 1, 48 * 1024 + 4, 0, d, d, d);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  ASSERT_EQ(cudaFuncSetAttribute(dynamic_shared_sum, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 64 * 1024),
            cudaSuccess);
  std::vector<float> one = {2.0f};
  ASSERT_EQ(cudaMemcpy(d, one.data(), sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  emu::launch(dynamic_shared_sum, 1, 1, 48 * 1024 + 4, 0, d, d + 1, d + 2);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(to_host(d + 1, 1)[0], 2.0f);
  EXPECT_EQ(cudaFuncSetAttribute(dynamic_shared_sum, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 228 * 1024),
            cudaErrorInvalidValue);
  reset_device();
}

__constant__ float coefficients[4];

__global__ void polynomial(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0;
  for (int c = 3; c >= 0; --c) acc = acc * x[i] + coefficients[c];
  y[i] = acc;
}

TEST(ConstantMemory, MemcpyToSymbolReachesKernels) {
  const float c[4] = {1, 2, 3, 4};
  ASSERT_EQ(cudaMemcpyToSymbol(coefficients, c, sizeof c), cudaSuccess);
  const float last = 5;
  ASSERT_EQ(cudaMemcpyToSymbol(coefficients, &last, sizeof last, 3 * sizeof(float)), cudaSuccess);
  std::vector<float> x = {0, 1, 2};
  float* d_x = to_device(x);
  float* d_y = nullptr;
  ASSERT_EQ(cudaMalloc(&d_y, 3 * sizeof(float)), cudaSuccess);
  emu::launch(polynomial, 1, 32, 0, 0, d_x, d_y, 3);
  const auto y = to_host(d_y, 3);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], 1.0f + 2 + 3 + 5);
  EXPECT_EQ(y[2], 1.0f + 4 + 12 + 40);
  float back[4];
  ASSERT_EQ(cudaMemcpyFromSymbol(back, coefficients, sizeof back), cudaSuccess);
  EXPECT_EQ(back[3], 5.0f);
  EXPECT_EQ(cudaMemcpyToSymbol(coefficients, c, sizeof c, 4), cudaErrorInvalidValue);
  void* address = nullptr;
  ASSERT_EQ(cudaGetSymbolAddress(&address, coefficients), cudaSuccess);
  EXPECT_EQ(address, static_cast<void*>(coefficients));
  cudaFree(d_x);
  cudaFree(d_y);
  (void)cudaGetLastError();
}

__global__ void count_runs(int* counter) { atomicAdd(counter, 1); }

TEST(Launch, BlockOverOneThousandTwentyFourThreadsIsInvalidConfiguration) {
  int* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, 0, sizeof(int)), cudaSuccess);
  emu::launch(count_runs, 1, 1025, 0, 0, d);
  EXPECT_EQ(cudaPeekAtLastError(), cudaErrorInvalidConfiguration);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);  // not sticky
  emu::launch(count_runs, 1, dim3(1, 1, 65), 0, 0, d);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  emu::launch(count_runs, dim3(1, 65536), 1, 0, 0, d);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  emu::launch(count_runs, 0, 32, 0, 0, d);
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidConfiguration);
  EXPECT_EQ(to_host(d, 1)[0], 0) << "a rejected launch must not run";
  emu::launch(count_runs, 1, 1024, 0, 0, d);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(to_host(d, 1)[0], 1024);
  cudaFree(d);
}

__global__ void scale(const float* in, float* out, float factor) {
  out[threadIdx.x] = in[threadIdx.x] * factor;
}

TEST(Launch, HostPointerArgumentIsReported) {
  std::vector<float> host(32, 1.0f);
  float* d = nullptr;
  ASSERT_EQ(cudaMalloc(&d, 32 * sizeof(float)), cudaSuccess);
  const size_t mark = report_size();
  emu::launch(scale, 1, 32, 0, 0, host.data(), d, 2);  // the input was never copied
  EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidValue);
  const std::string report = report_since(mark);
  EXPECT_NE(report.find("\"kind\": \"host_pointer\""), std::string::npos) << report;
  EXPECT_NE(report.find("\"argument\": 0"), std::string::npos) << report;
  EXPECT_NE(report.find("_ZN8emu_test5scale"), std::string::npos) << report;

  // Device buffers, end pointers, pinned memory and globals are all fine.
  float* pinned = nullptr;
  ASSERT_EQ(cudaMallocHost(&pinned, 32 * sizeof(float)), cudaSuccess);
  emu::launch(scale, 1, 0 + 32, 0, 0, d, pinned, 2);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  emu::launch(scale, 1, 1, 0, 0, d + 32 - 1, d + 31, 2);
  emu::launch(scale, 1, 1, 0, 0, coefficients, d, 2);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  cudaFree(d);
  cudaFreeHost(pinned);
}

__global__ void atomics_everywhere(int* i, unsigned* u, unsigned long long* ull, float* f,
                                   double* d, int* minmax, unsigned* wrap) {
  atomicAdd(i, 1);
  atomicSub(i + 1, 2);
  atomicAdd(u, 1);  // 1 converts to unsigned, as with CUDA's overloads
  atomicAdd(ull, 3ull);
  atomicAdd(f, 0.5f);
  atomicAdd(d, 0.25);
  const int id = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  atomicMin(minmax, id);
  atomicMax(minmax + 1, id);
  atomicOr(minmax + 2, 1 << (id % 31));
  atomicInc(wrap, 9u);
  atomicCAS(minmax + 3, 0, id + 1);  // only the first thread to get there wins
}

TEST(Atomics, AreAtomicAcrossBlocksOnSeveralOsThreads) {
  const int blocks = 64, threads = 128, total = blocks * threads;
  int* i = nullptr;
  unsigned* u = nullptr;
  unsigned long long* ull = nullptr;
  float* f = nullptr;
  double* d = nullptr;
  int* minmax = nullptr;
  unsigned* wrap = nullptr;
  ASSERT_EQ(cudaMalloc(&i, 2 * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&u, sizeof(unsigned)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&ull, sizeof(unsigned long long)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&f, sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&d, sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&minmax, 4 * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&wrap, sizeof(unsigned)), cudaSuccess);
  ASSERT_EQ(cudaMemset(i, 0, 2 * sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(u, 0, sizeof(unsigned)), cudaSuccess);
  ASSERT_EQ(cudaMemset(ull, 0, sizeof(unsigned long long)), cudaSuccess);
  ASSERT_EQ(cudaMemset(f, 0, sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemset(d, 0, sizeof(double)), cudaSuccess);
  ASSERT_EQ(cudaMemset(wrap, 0, sizeof(unsigned)), cudaSuccess);
  const int init[4] = {1 << 30, -1, 0, 0};
  ASSERT_EQ(cudaMemcpy(minmax, init, sizeof init, cudaMemcpyHostToDevice), cudaSuccess);
  emu::launch(atomics_everywhere, blocks, threads, 0, 0, i, u, ull, f, d, minmax, wrap);
  ASSERT_EQ(cudaGetLastError(), cudaSuccess);
  EXPECT_EQ(to_host(i, 2)[0], total);
  EXPECT_EQ(to_host(i, 2)[1], -2 * total);
  EXPECT_EQ(to_host(u, 1)[0], static_cast<unsigned>(total));
  EXPECT_EQ(to_host(ull, 1)[0], 3ull * total);
  EXPECT_EQ(to_host(f, 1)[0], 0.5f * total);
  EXPECT_EQ(to_host(d, 1)[0], 0.25 * total);
  const auto mm = to_host(minmax, 4);
  EXPECT_EQ(mm[0], 0);
  EXPECT_EQ(mm[1], total - 1);
  EXPECT_EQ(mm[2], 0x7FFFFFFF);
  EXPECT_GT(mm[3], 0);
  EXPECT_EQ(to_host(wrap, 1)[0], static_cast<unsigned>(total % 10));
  for (void* p : {static_cast<void*>(i), static_cast<void*>(u), static_cast<void*>(ull),
                  static_cast<void*>(f), static_cast<void*>(d), static_cast<void*>(minmax),
                  static_cast<void*>(wrap)}) {
    EXPECT_EQ(cudaFree(p), cudaSuccess);
  }
}

// CUDA's min/max take mixed types; std::min would not compile with these.
TEST(Builtins, MinMaxAcceptMixedTypes) {
  const size_t n = 10;
  const int k = 3;
  EXPECT_EQ(min(n, k), 3u);
  EXPECT_EQ(max(2.5f, 3), 3.0f);
  EXPECT_EQ(min(1.0, 0.5f), 0.5);
  using namespace std;
  EXPECT_EQ(min(4, 7), 4);
  EXPECT_EQ(__float2int_rn(2.5f), 2);
  EXPECT_EQ(__float2int_rn(3.5f), 4);
  EXPECT_FLOAT_EQ(rsqrtf(4.0f), 0.5f);
  EXPECT_EQ(sizeof(float4), 16u);
  EXPECT_EQ(alignof(float4), 16u);
  EXPECT_EQ(alignof(float2), 8u);
  const float4 v = make_float4(1, 2, 3, 4);
  EXPECT_EQ(v.w, 4.0f);
  EXPECT_GT(clock64(), 0);
}
}  // namespace emu_test

namespace emu_test {
__global__ void child(int* counter) { atomicAdd(counter, 1); }
__global__ void parent(int* counter) { emu::launch(child, 1, 1, 0, 0, counter); }

TEST(Launch, LaunchFromAKernelIsNotSupported) {
  int* counter = nullptr;
  ASSERT_EQ(cudaMalloc(&counter, sizeof(int)), cudaSuccess);
  ASSERT_EQ(cudaMemset(counter, 0, sizeof(int)), cudaSuccess);
  const size_t mark = report_size();
  emu::launch(parent, 1, 1, 0, 0, counter);
  EXPECT_EQ(cudaGetLastError(), cudaErrorNotSupported);
  EXPECT_EQ(to_host(counter, 1)[0], 0);
  EXPECT_NE(report_since(mark).find("dynamic parallelism"), std::string::npos);
  cudaFree(counter);
}
}  // namespace emu_test
