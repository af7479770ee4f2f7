// The kit's one checked-call macro for the CUDA runtime API.
//
// A failing call throws labkit::CudaError carrying the expression, file, line and the error's name,
// so the harness can report it as the result of the case in flight instead of dying: a broken
// submission must cost only its own case, never the rest of the run.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace labkit {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

[[noreturn]] inline void throw_cuda_error(cudaError_t code, const char* expr, const char* file,
                                          int line) {
  throw CudaError(code, std::string(cudaGetErrorName(code)) + " (" + cudaGetErrorString(code) +
                            ") from " + expr + " at " + file + ":" + std::to_string(line));
}

}  // namespace labkit

#define LABKIT_CUDA_CHECK(expr)                                       \
  do {                                                                \
    const cudaError_t labkit_status_ = (expr);                        \
    if (labkit_status_ != cudaSuccess)                                \
      ::labkit::throw_cuda_error(labkit_status_, #expr, __FILE__, __LINE__); \
  } while (0)
