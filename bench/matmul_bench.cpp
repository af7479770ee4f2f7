// matmul_bench: lab 03's kernels against cuBLAS SGEMM, in one run.
//
// Variants, all square m = n = k: the rows kernel (TILE 16 blocks), the tiled kernel built with
// TILE 16 and with TILE 32 (two builds of solutions/03_tiled_matmul/matmul.cu, see
// matmul_rename.h), and cublasSgemm in FP32 without tensor cores. For each size and variant:
// one checked run, warm-up, then timed runs with the L2 flushed before each one; the median is
// reported. See bench/README.md.
//
// Exit status: 0 all variants correct, 1 a wrong result or a CUDA/cuBLAS error, 2 bad arguments,
// 77 no GPU (CTest's SKIP_RETURN_CODE for the smoke test).
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "bench_report.h"
#include "cublas_check.h"
#include "labkit/cuda_check.cuh"
#include "labkit/device_buffer.cuh"
#include "matmul_variants.h"

namespace {

constexpr int kExitNoDevice = 77;
constexpr int kWarmupRuns = 2;
constexpr double kTolerance = 1e-3;
// Both tiled kernels need sizes that are multiples of their TILE (exercise 1 of the lab).
constexpr int kSizeMultiple = 32;

struct Options {
  std::vector<int> sizes{1024, 2048, 4096};
  double max_seconds = 2.0;
  int min_reps = 10;
  int max_reps = 1000;
  std::string json_path;
  bool pedantic = false;
  unsigned seed = 2024;
};

const char* const kUsage =
    "usage: matmul_bench [--sizes 1024,2048,4096] [--max-seconds 2] [--min-reps 10]\n"
    "                    [--max-reps 1000] [--cublas-math default|pedantic] [--seed 2024]\n"
    "                    [--json FILE]\n"
    "Times lab 03's rows kernel, the tiled kernel with TILE 16 and 32, and cuBLAS SGEMM on square\n"
    "matrices; sizes must be multiples of 32. See bench/README.md.\n";

bool parse_int(const std::string& text, long lo, long hi, int& out) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < lo || v > hi) return false;
  out = static_cast<int>(v);
  return true;
}

// Returns an empty string on success, else what is wrong with the arguments.
std::string parse_args(int argc, char** argv, Options& opt) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") return "help";
    if (i + 1 >= argc) return arg + " needs a value (or is unknown)";
    const std::string value = argv[++i];
    if (arg == "--sizes") {
      opt.sizes.clear();
      std::stringstream list(value);
      std::string item;
      while (std::getline(list, item, ',')) {
        int s = 0;
        // 16384^2 floats is 1 GiB per matrix, and the kernels index with int.
        if (!parse_int(item, 1, 16384, s) || s % kSizeMultiple != 0)
          return "--sizes: '" + item + "' is not a multiple of 32 between 32 and 16384";
        opt.sizes.push_back(s);
      }
      if (opt.sizes.empty()) return "--sizes: no size given";
    } else if (arg == "--max-seconds") {
      char* end = nullptr;
      opt.max_seconds = std::strtod(value.c_str(), &end);
      if (*end != '\0' || !(opt.max_seconds > 0.0)) return "--max-seconds: want a number > 0";
    } else if (arg == "--min-reps") {
      if (!parse_int(value, 1, 1000000, opt.min_reps)) return "--min-reps: want an integer >= 1";
    } else if (arg == "--max-reps") {
      if (!parse_int(value, 1, 1000000, opt.max_reps)) return "--max-reps: want an integer >= 1";
    } else if (arg == "--seed") {
      int seed = 0;
      if (!parse_int(value, 0, 2147483647, seed)) return "--seed: want an integer >= 0";
      opt.seed = static_cast<unsigned>(seed);
    } else if (arg == "--cublas-math") {
      if (value != "default" && value != "pedantic")
        return "--cublas-math: want default or pedantic";
      opt.pedantic = value == "pedantic";
    } else if (arg == "--json") {
      opt.json_path = value;
    } else {
      return "unknown argument " + arg;
    }
  }
  if (opt.max_reps < opt.min_reps) return "--max-reps must be >= --min-reps";
  return "";
}

// The display driver's version through NVML, opened at run time so that the program still starts
// (and can exit 77) on a machine without the driver. Empty when NVML is not there.
std::string nvidia_driver_version() {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return "";
  using InitFn = int (*)();
  using VersionFn = int (*)(char*, unsigned);
  using ShutdownFn = int (*)();
  const auto init = reinterpret_cast<InitFn>(dlsym(lib, "nvmlInit_v2"));
  const auto version = reinterpret_cast<VersionFn>(dlsym(lib, "nvmlSystemGetDriverVersion"));
  const auto shutdown = reinterpret_cast<ShutdownFn>(dlsym(lib, "nvmlShutdown"));
  std::string result;
  if (init != nullptr && version != nullptr && shutdown != nullptr && init() == 0) {
    char buf[96] = {};
    if (version(buf, sizeof buf) == 0) result = buf;  // NVML_SUCCESS is 0
    shutdown();
  }
  dlclose(lib);
  return result;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

bench::DeviceInfo device_info(int device) {
  cudaDeviceProp prop{};
  LABKIT_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  bench::DeviceInfo d;
  d.name = prop.name;
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  d.nvidia_driver = nvidia_driver_version();
  LABKIT_CUDA_CHECK(cudaDriverGetVersion(&d.cuda_driver));
  LABKIT_CUDA_CHECK(cudaRuntimeGetVersion(&d.cuda_runtime));
  d.date_utc = utc_now();
  return d;
}

// Uniform in [-1, 1] but never exactly zero, so that no product term vanishes by accident.
std::vector<float> random_matrix(std::size_t count, std::mt19937& rng) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(count);
  for (float& x : v) {
    do x = dist(rng);
    while (x == 0.0f);
  }
  return v;
}

// ||out - ref||_F / ||ref||_F in double. A zero reference (impossible with the inputs above) gives
// 0 for an exact match and infinity otherwise, never a division by zero. NaN in `out` gives NaN,
// which fails every `<= tolerance` test.
double relative_frobenius_error(const std::vector<float>& out, const std::vector<float>& ref) {
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = static_cast<double>(out[i]) - ref[i];
    diff += d * d;
    norm += static_cast<double>(ref[i]) * ref[i];
  }
  if (norm == 0.0) return diff == 0.0 ? 0.0 : INFINITY;
  return std::sqrt(diff / norm);
}

// cuBLAS is the reference for the kernels, so it is checked itself, against a double-precision
// product on sampled elements (corners included): this catches a wrong operand order or
// transposition in the call below, which a square test would otherwise hide.
double cublas_sample_error(const std::vector<float>& A, const std::vector<float>& B,
                           const std::vector<float>& C, int s, std::mt19937& rng) {
  std::uniform_int_distribution<int> pick(0, s - 1);
  double diff = 0.0, norm = 0.0;
  for (int sample = 0; sample < 256; ++sample) {
    int row = pick(rng), col = pick(rng);
    if (sample == 0) row = col = 0;
    if (sample == 1) row = col = s - 1;
    if (sample == 2) row = 0, col = s - 1;
    double exact = 0.0;
    for (int i = 0; i < s; ++i)
      exact += static_cast<double>(A[static_cast<std::size_t>(row) * s + i]) *
               B[static_cast<std::size_t>(i) * s + col];
    const double d = C[static_cast<std::size_t>(row) * s + col] - exact;
    diff += d * d;
    norm += exact * exact;
  }
  if (norm == 0.0) return diff == 0.0 ? 0.0 : INFINITY;
  return std::sqrt(diff / norm);
}

// Row-major C (m x k) = A (m x n) * B (n x k) through column-major SGEMM. cuBLAS reads a row-major
// r x c matrix as its column-major transpose, so it is asked for C^T = B^T * A^T: B goes first,
// and the leading dimensions are the row-major row lengths (k for B and C, n for A).
void sgemm_row_major(cublasHandle_t handle, const float* A, const float* B, float* C, int m, int n,
                     int k) {
  const float alpha = 1.0f, beta = 0.0f;
  BENCH_CUBLAS_CHECK(
      cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, k, m, n, &alpha, B, k, A, n, &beta, C, k));
}

struct Variant {
  std::string key;
  std::string label;
  std::function<void(const float*, const float*, float*, int)> launch;
};

struct Timing {
  double median_ms = 0.0, min_ms = 0.0, max_ms = 0.0;
  int reps = 0;
};

// Launches once and checks both the launch and the execution (the lab's launchers do not check).
void run_checked(const Variant& v, const float* A, const float* B, float* C, int s) {
  v.launch(A, B, C, s);
  LABKIT_CUDA_CHECK(cudaGetLastError());
  LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
}

Timing time_variant(const Variant& v, const float* A, const float* B, float* C, int s,
                    labkit::DeviceBuffer<unsigned char>& flush, const Options& opt) {
  for (int i = 0; i < kWarmupRuns; ++i) run_checked(v, A, B, C, s);

  labkit::Event start, stop;
  std::vector<double> ms;
  const auto began = std::chrono::steady_clock::now();
  for (;;) {
    // Everything on the default stream, in order: the flush has finished before `start` is
    // recorded, so it is not timed, and the kernel finds none of A, B or C in the L2.
    LABKIT_CUDA_CHECK(cudaMemsetAsync(flush.get(), 0, flush.bytes(), nullptr));
    start.record();
    v.launch(A, B, C, s);
    LABKIT_CUDA_CHECK(cudaGetLastError());
    stop.record();
    ms.push_back(stop.elapsed_since(start));  // waits for `stop`
    const std::chrono::duration<double> spent = std::chrono::steady_clock::now() - began;
    const int reps = static_cast<int>(ms.size());
    if (reps >= opt.min_reps && (spent.count() >= opt.max_seconds || reps >= opt.max_reps)) break;
  }
  LABKIT_CUDA_CHECK(cudaDeviceSynchronize());

  std::sort(ms.begin(), ms.end());
  Timing t;
  t.reps = static_cast<int>(ms.size());
  const std::size_t mid = ms.size() / 2;
  t.median_ms = ms.size() % 2 == 1 ? ms[mid] : (ms[mid - 1] + ms[mid]) / 2.0;
  t.min_ms = ms.front();
  t.max_ms = ms.back();
  return t;
}

int run(const Options& opt) {
  int device_count = 0;
  const cudaError_t count_status = cudaGetDeviceCount(&device_count);
  if (count_status != cudaSuccess || device_count == 0) {
    std::fprintf(stderr, "no CUDA device: this benchmark needs a GPU (cudaGetDeviceCount: %s)\n",
                 count_status != cudaSuccess ? cudaGetErrorName(count_status) : "0 devices");
    return kExitNoDevice;
  }
  const int device = 0;  // pick another one with CUDA_VISIBLE_DEVICES
  LABKIT_CUDA_CHECK(cudaSetDevice(device));

  bench::DeviceInfo info = device_info(device);
  bench::CublasHandle cublas;
  BENCH_CUBLAS_CHECK(cublasGetVersion(cublas.get(), &info.cublas));
  // FP32 on CUDA cores is the fair comparison with the lab's kernels. Neither mode below allows
  // TF32 tensor cores for SGEMM (that takes CUBLAS_TF32_TENSOR_OP_MATH); DEFAULT picks cuBLAS's
  // fastest FP32 algorithm, PEDANTIC the strictly standard arithmetic.
  const cublasMath_t math = opt.pedantic ? CUBLAS_PEDANTIC_MATH : CUBLAS_DEFAULT_MATH;
  BENCH_CUBLAS_CHECK(cublasSetMathMode(cublas.get(), math));
  BENCH_CUBLAS_CHECK(cublasSetStream(cublas.get(), nullptr));  // the stream the events use

  bench::Method method;
  method.cublas_math = opt.pedantic ? "CUBLAS_PEDANTIC_MATH" : "CUBLAS_DEFAULT_MATH";
  method.warmup_runs = kWarmupRuns;
  method.min_reps = opt.min_reps;
  method.max_reps = opt.max_reps;
  method.max_seconds = opt.max_seconds;
  // Twice the L2, so that whatever the previous run left there is gone.
  method.flush_bytes = std::max<std::size_t>(2 * info.l2_bytes, std::size_t{8} << 20);
  method.tolerance = kTolerance;
  method.seed = opt.seed;

  std::printf("%s\n%s\n", bench::header_line(info).c_str(), bench::method_lines(method).c_str());
  std::fflush(stdout);

  const cublasHandle_t handle = cublas.get();
  // cuBLAS first: it is the reference every other variant is checked against.
  const std::vector<Variant> variants = {
      {"cublas_sgemm", "cuBLAS SGEMM",
       [handle](const float* A, const float* B, float* C, int s) {
         sgemm_row_major(handle, A, B, C, s, s, s);
       }},
      {"rows_t16", "rows, TILE 16",
       [](const float* A, const float* B, float* C, int s) { matmul_rows_t16(A, B, C, s, s, s); }},
      {"tiled_t16", "tiled, TILE 16",
       [](const float* A, const float* B, float* C, int s) { matmul_tiled_t16(A, B, C, s, s, s); }},
      {"tiled_t32", "tiled, TILE 32",
       [](const float* A, const float* B, float* C, int s) { matmul_tiled_t32(A, B, C, s, s, s); }},
  };

  labkit::DeviceBuffer<unsigned char> flush(method.flush_bytes);
  std::mt19937 rng(opt.seed);
  std::vector<bench::Row> all_rows;
  std::vector<std::string> failures;

  for (const int s : opt.sizes) {
    const std::size_t count = static_cast<std::size_t>(s) * s;
    const std::vector<float> hA = random_matrix(count, rng);
    const std::vector<float> hB = random_matrix(count, rng);
    labkit::DeviceBuffer<float> A(count), B(count), C(count);
    LABKIT_CUDA_CHECK(cudaMemcpy(A.get(), hA.data(), A.bytes(), cudaMemcpyHostToDevice));
    LABKIT_CUDA_CHECK(cudaMemcpy(B.get(), hB.data(), B.bytes(), cudaMemcpyHostToDevice));

    std::vector<float> reference, out(count);
    std::vector<bench::Row> rows;
    for (const Variant& v : variants) {
      // All-ones bytes are NaN floats: a kernel that leaves part of C unwritten cannot pass.
      LABKIT_CUDA_CHECK(cudaMemset(C.get(), 0xFF, C.bytes()));
      run_checked(v, A.get(), B.get(), C.get(), s);
      LABKIT_CUDA_CHECK(cudaMemcpy(out.data(), C.get(), C.bytes(), cudaMemcpyDeviceToHost));

      bench::Row row;
      row.size = s;
      row.variant = v.key;
      row.label = v.label;
      const bool is_reference = reference.empty();  // cuBLAS, the first variant
      if (is_reference) {
        row.rel_error = cublas_sample_error(hA, hB, out, s, rng);
        reference = out;
      } else {
        row.rel_error = relative_frobenius_error(out, reference);
      }
      row.passed = row.rel_error <= kTolerance;  // false for NaN too
      if (!row.passed) {
        char msg[200];
        std::snprintf(msg, sizeof msg,
                      "FAIL: %s at %d x %d x %d: relative Frobenius error %.3e > %.0e (%s)",
                      v.label.c_str(), s, s, s, row.rel_error, kTolerance,
                      is_reference ? "against a double-precision CPU product" : "against cuBLAS");
        std::fprintf(stderr, "%s\n", msg);
        failures.push_back(msg);
      }

      const Timing t = time_variant(v, A.get(), B.get(), C.get(), s, flush, opt);
      row.median_ms = t.median_ms;
      row.min_ms = t.min_ms;
      row.max_ms = t.max_ms;
      row.reps = t.reps;
      row.gflops = 2.0 * s * s * static_cast<double>(s) / (t.median_ms * 1e-3) / 1e9;
      rows.push_back(row);
    }

    const double cublas_ms = rows[0].median_ms, rows_ms = rows[1].median_ms;
    for (bench::Row& r : rows) {
      r.vs_rows = rows_ms / r.median_ms;
      r.vs_cublas = cublas_ms / r.median_ms;
    }
    // Printed as each size finishes, in the lab's order, so a crash later keeps what was measured.
    std::printf("\n%s\n", bench::table_heading().c_str());
    for (const int i : {1, 2, 3, 0}) std::printf("%s\n", bench::table_row(rows[i]).c_str());
    std::fflush(stdout);
    for (const int i : {1, 2, 3, 0}) all_rows.push_back(rows[i]);
  }

  if (!opt.json_path.empty()) {
    std::string error;
    if (!bench::write_json(opt.json_path, info, method, all_rows, error)) {
      std::fprintf(stderr, "matmul_bench: %s\n", error.c_str());
      return 1;
    }
    std::printf("\nwrote %s\n", opt.json_path.c_str());
  }
  if (!failures.empty()) {
    std::fprintf(stderr, "\nmatmul_bench: %zu variant(s) computed a wrong result:\n",
                 failures.size());
    for (const std::string& f : failures) std::fprintf(stderr, "  %s\n", f.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  const std::string arg_error = parse_args(argc, argv, opt);
  if (arg_error == "help") {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!arg_error.empty()) {
    std::fprintf(stderr, "matmul_bench: %s\n%s", arg_error.c_str(), kUsage);
    return 2;
  }
  try {
    return run(opt);
  } catch (const std::exception& e) {  // labkit::CudaError, bench::CublasError, std::bad_alloc
    std::fprintf(stderr, "matmul_bench: %s\n", e.what());
    return 1;
  }
}
