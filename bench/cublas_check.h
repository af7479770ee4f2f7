// A checked call for cuBLAS and an owner for its handle: the cuBLAS counterpart of
// labkit/cuda_check.cuh and labkit/device_buffer.cuh, which cover the runtime API only.
#pragma once

#include <cublas_v2.h>

#include <stdexcept>
#include <string>

namespace bench {

class CublasError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] inline void throw_cublas_error(cublasStatus_t status, const char* expr,
                                            const char* file, int line) {
  throw CublasError(std::string(cublasGetStatusName(status)) + " (" +
                    cublasGetStatusString(status) + ") from " + expr + " at " + file + ":" +
                    std::to_string(line));
}

// Owns one cuBLAS handle; move-free on purpose (the benchmark makes exactly one).
class CublasHandle {
 public:
  CublasHandle();
  ~CublasHandle() {
    if (handle_ != nullptr) cublasDestroy(handle_);  // no check: a destructor must not throw
  }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

}  // namespace bench

#define BENCH_CUBLAS_CHECK(expr)                                             \
  do {                                                                       \
    const cublasStatus_t bench_status_ = (expr);                             \
    if (bench_status_ != CUBLAS_STATUS_SUCCESS)                              \
      ::bench::throw_cublas_error(bench_status_, #expr, __FILE__, __LINE__); \
  } while (0)

inline bench::CublasHandle::CublasHandle() { BENCH_CUBLAS_CHECK(cublasCreate(&handle_)); }
