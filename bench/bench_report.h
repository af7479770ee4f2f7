// What the benchmark prints and writes: the header line, the table and the --json file.
// Pure formatting; no CUDA in here, so it is the same whatever the measurements came from.
#pragma once

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace bench {

struct DeviceInfo {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  std::string nvidia_driver;  // e.g. "580.65.06" from NVML; empty where NVML is not available
  int cuda_driver = 0;        // cudaDriverGetVersion: the CUDA version the driver supports, 13000
  int cuda_runtime = 0;       // cudaRuntimeGetVersion, 13000
  int cublas = 0;             // cublasGetVersion, 130100 for 13.1.0
  std::string date_utc;       // ISO 8601, taken when the run starts
};

struct Method {
  std::string cublas_math;  // "CUBLAS_DEFAULT_MATH" or "CUBLAS_PEDANTIC_MATH"
  int warmup_runs = 0;
  int min_reps = 0;
  int max_reps = 0;
  double max_seconds = 0.0;
  std::size_t flush_bytes = 0;
  double tolerance = 0.0;
  unsigned seed = 0;
};

// One measured variant at one size. The ratios are speeds relative to another variant of the same
// size: vs_rows = rows ms / this ms (a speedup), vs_cublas = cuBLAS ms / this ms (a fraction).
struct Row {
  int size = 0;
  std::string variant;  // stable key: rows_t16, tiled_t16, tiled_t32, cublas_sgemm
  std::string label;    // for people: "tiled, TILE 32"
  double median_ms = 0.0, min_ms = 0.0, max_ms = 0.0;
  double gflops = 0.0;
  double vs_rows = 0.0, vs_cublas = 0.0;
  int reps = 0;
  double rel_error = 0.0;  // relative Frobenius error against cuBLAS (cuBLAS: against the CPU)
  bool passed = false;
};

std::string version_string(int cuda_version);  // 13000 -> "13.0"
std::string header_line(const DeviceInfo& device);
std::string method_lines(const Method& method);
std::string table_heading();
std::string table_row(const Row& row);

// Writes everything to `path`; returns false and sets `error` when the file cannot be written.
bool write_json(const std::string& path, const DeviceInfo& device, const Method& method,
                const std::vector<Row>& rows, std::string& error);

}  // namespace bench
