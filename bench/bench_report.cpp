#include "bench_report.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace bench {

namespace {

std::string format(const char* fmt, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, a);
  return buf;
}

std::string cublas_version_string(int v) {
  // cublasGetVersion: major * 10000 + minor * 100 + patch.
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

}  // namespace

std::string version_string(int v) {
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string header_line(const DeviceInfo& d) {
  std::ostringstream out;
  out << "GPU: " << d.name << " (sm_" << d.cc_major << d.cc_minor << ", " << d.sm_count
      << " SMs, L2 " << format("%.1f", d.l2_bytes / 1048576.0) << " MiB) | driver "
      << (d.nvidia_driver.empty() ? std::string("unknown (no NVML)") : d.nvidia_driver) << ", CUDA "
      << version_string(d.cuda_driver) << " | runtime " << version_string(d.cuda_runtime)
      << " | cuBLAS " << cublas_version_string(d.cublas) << " | " << d.date_utc;
  return out.str();
}

std::string method_lines(const Method& m) {
  std::ostringstream out;
  out << "cuBLAS: cublasSgemm, " << m.cublas_math
      << " (FP32 on CUDA cores, TF32 tensor cores off)\n"
      << "method: square m = n = k, A and B uniform in [-1, 1] (seed " << m.seed << "); "
      << m.warmup_runs << " warm-up runs; before each timed run the L2 is flushed (memset of "
      << format("%.1f", m.flush_bytes / 1048576.0) << " MiB = 2x L2); CUDA events around the "
      << "launch alone; median of at least " << m.min_reps << " runs, until "
      << format("%g", m.max_seconds) << " s or " << m.max_reps << " runs per variant\n"
      << "check: each output against cuBLAS by relative Frobenius error, must be <= "
      << format("%g", m.tolerance)
      << "; cuBLAS against a double-precision CPU product on "
         "sampled elements\n"
      << "ratios: vs rows = rows ms / this ms (speedup over the rows kernel); "
         "vs cuBLAS = cuBLAS ms / this ms (fraction of cuBLAS's speed)";
  return out.str();
}

std::string table_heading() {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%6s  %-16s %12s %10s %9s %10s %6s %10s  %s", "size", "variant",
                "ms (median)", "GFLOP/s", "vs rows", "vs cuBLAS", "reps", "rel. err", "check");
  return buf;
}

std::string table_row(const Row& r) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%6d  %-16s %12.4f %10.1f %8.2fx %10.3f %6d %10.2e  %s", r.size,
                r.label.c_str(), r.median_ms, r.gflops, r.vs_rows, r.vs_cublas, r.reps, r.rel_error,
                r.passed ? "ok" : "FAIL");
  return buf;
}

bool write_json(const std::string& path, const DeviceInfo& d, const Method& m,
                const std::vector<Row>& rows, std::string& error) {
  nlohmann::ordered_json doc;
  doc["device"] = {
      {"name", d.name},
      {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
      {"sm_count", d.sm_count},
      {"l2_bytes", d.l2_bytes},
      {"driver", d.nvidia_driver},
      {"cuda_driver", version_string(d.cuda_driver)},
      {"cuda_runtime", version_string(d.cuda_runtime)},
      {"cublas", cublas_version_string(d.cublas)},
      {"date_utc", d.date_utc}};
  doc["method"] = {{"cublas_math", m.cublas_math}, {"warmup_runs", m.warmup_runs},
                   {"min_reps", m.min_reps},       {"max_reps", m.max_reps},
                   {"max_seconds", m.max_seconds}, {"l2_flush_bytes", m.flush_bytes},
                   {"tolerance", m.tolerance},     {"seed", m.seed}};
  doc["results"] = nlohmann::ordered_json::array();
  for (const Row& r : rows) {
    doc["results"].push_back({{"size", r.size},
                              {"variant", r.variant},
                              {"median_ms", r.median_ms},
                              {"min_ms", r.min_ms},
                              {"max_ms", r.max_ms},
                              {"gflops", r.gflops},
                              {"ratio_to_rows", r.vs_rows},
                              {"ratio_to_cublas", r.vs_cublas},
                              {"reps", r.reps},
                              {"rel_error", r.rel_error},
                              {"passed", r.passed}});
  }
  std::ofstream out(path);
  out << doc.dump(2) << "\n";
  out.close();
  if (!out) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}

}  // namespace bench
