// Lab 02's checking helpers: inputs, poison, element-by-element comparison with the first wrong
// element described, and pitched storage with a sentinel in its padding. Used by harness.cu only.
//
// Inputs are small multiples of 1/4, drawn afresh for every case, so every sum, product and scaling
// the lab does is exact in float: a right answer matches the kit's bit for bit, whatever order or
// FMA the compiler picks.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "labkit/cuda_check.cuh"
#include "query_harness.h"

namespace lab02 {

// A NaN no arithmetic produces: an element holding it was never written.
inline float Poison() {
  const uint32_t bits = 0x7fc0dead;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
inline bool IsPoison(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits == 0x7fc0dead;
}
// What the replay of a student's host function fills its device allocations with (0xFF bytes, a
// NaN no arithmetic produces either): a value copied back with these bits was never written there.
constexpr unsigned char kAllocationPoisonByte = 0xFF;
inline bool IsAllocationPoison(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits == 0xFFFFFFFFu;
}
inline bool SameBits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Extra elements after each output, kept poisoned: a store past the end lands there.
constexpr int kGuard = 64;

// `count` values in [-4, 4] in steps of 1/4, the same for the same `seed`.
inline std::vector<float> Values(std::size_t count, uint32_t seed) {
  std::vector<float> v(count);
  uint32_t state = seed * 2654435761u + 12345u;
  for (float& x : v) {
    state = state * 1664525u + 1013904223u;  // a plain LCG: inputs, not statistics
    x = static_cast<float>(static_cast<int>((state >> 8) % 33u) - 16) * 0.25f;
  }
  return v;
}

// A seed for a case's inputs, drawn when the case runs: no code of the student's could know it
// beforehand (a recorded host function's replay draws its inputs after the function returned), so
// neither a table of expected outputs nor a result computed by host code can match them.
inline uint32_t FreshSeed() { return std::random_device{}(); }

inline std::string Num(float f) {
  if (IsPoison(f)) return "the poison NaN";
  if (IsAllocationPoison(f)) return "the NaN a fresh allocation holds";
  char text[32];
  std::snprintf(text, sizeof text, "%g", static_cast<double>(f));
  return text;
}

// The first of `got[0..n)` that differs from `want`, described: "out[7] should be 1.5, got 0".
// `explain(i)` may add why (empty: nothing known).
struct Mismatches {
  long long count = 0;
  std::string first;
};
inline Mismatches Compare(const std::string& name, const float* want, const float* got,
                          std::size_t n, const std::function<std::string(std::size_t)>& explain) {
  Mismatches m;
  for (std::size_t i = 0; i < n; ++i) {
    if (SameBits(want[i], got[i])) continue;
    if (m.count++ > 0) continue;
    m.first =
        name + "[" + std::to_string(i) + "] should be " + Num(want[i]) + ", got " + Num(got[i]);
    const std::string why = explain ? explain(i) : "";
    if (!why.empty()) m.first += ": " + why;
  }
  return m;
}

// Guard elements [from, to) of `got` no longer poisoned.
inline long long Overwritten(const std::vector<float>& got, std::size_t from) {
  long long changed = 0;
  for (std::size_t i = from; i < got.size(); ++i) changed += IsPoison(got[i]) ? 0 : 1;
  return changed;
}

// Compares `got` with `expected` and, when they differ, gives the value its cause.
inline void Check(labkit::QueryValues& v, const char* name, double got, double expected,
                  const std::string& cause) {
  v.compare(name, got, expected);
  if (got != expected && !cause.empty()) v.hint(name, got, cause);
}

// Runs `body`; a failing call of the kit's own (after the student's kernel made the context
// unusable, say) becomes the case's error instead of ending the harness.
template <class Body>
void Guarded(labkit::QueryValues& v, Body&& body) {
  try {
    body();
  } catch (const labkit::CudaError& e) {
    v.fail(cudaGetErrorName(e.code()), e.what());
  }
}

// After the kit launched a student's kernel: its launch and run errors, as the case's error.
inline void SyncKernel(const char* kernel) {
  const cudaError_t launch = cudaGetLastError();
  if (launch != cudaSuccess) labkit::throw_cuda_error(launch, kernel, "the kit's launch", 0);
  LABKIT_CUDA_CHECK(cudaDeviceSynchronize());
}

// A height x width float matrix in pitched device memory whose padding (bytes width*4 .. pitch of
// every row) holds a sentinel, so that a kernel writing outside the logical matrix is seen. The
// sentinel is finite, not the poison NaN: a NaN survives arithmetic with its bits unchanged (a
// kernel scaling the padding, or a product reading it, would pass it on unseen), a huge number
// does not.
class PitchedMatrix {
 public:
  static constexpr float kPadding = 1.0e30f;

  PitchedMatrix(int width, int height, const std::vector<float>& dense)
      : width_(width), height_(height) {
    LABKIT_CUDA_CHECK(
        cudaMallocPitch(reinterpret_cast<void**>(&data_), &pitch_, width * sizeof(float), height));
    // Rows are whole floats apart on every GPU (pitch is a multiple of 256 or more bytes).
    std::vector<float> image(pitch_ / sizeof(float) * height, kPadding);
    for (int r = 0; r < height; ++r)
      std::memcpy(&image[r * stride()], &dense[static_cast<std::size_t>(r) * width],
                  width * sizeof(float));
    LABKIT_CUDA_CHECK(
        cudaMemcpy(data_, image.data(), image.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
  ~PitchedMatrix() { cudaFree(data_); }
  PitchedMatrix(const PitchedMatrix&) = delete;
  PitchedMatrix& operator=(const PitchedMatrix&) = delete;

  float* get() const { return data_; }
  std::size_t pitch() const { return pitch_; }
  std::size_t stride() const { return pitch_ / sizeof(float); }

  // Every row, padding included.
  std::vector<float> Image() const {
    std::vector<float> image(stride() * height_);
    LABKIT_CUDA_CHECK(
        cudaMemcpy(image.data(), data_, image.size() * sizeof(float), cudaMemcpyDeviceToHost));
    return image;
  }
  // The logical matrix out of an image, and the padding elements that lost their poison.
  std::vector<float> Dense(const std::vector<float>& image) const {
    std::vector<float> dense(static_cast<std::size_t>(width_) * height_);
    for (int r = 0; r < height_; ++r)
      std::memcpy(&dense[static_cast<std::size_t>(r) * width_], &image[r * stride()],
                  width_ * sizeof(float));
    return dense;
  }
  long long PaddingWritten(const std::vector<float>& image) const {
    long long changed = 0;
    for (int r = 0; r < height_; ++r)
      for (std::size_t c = width_; c < stride(); ++c)
        changed += SameBits(image[r * stride() + c], kPadding) ? 0 : 1;
    return changed;
  }

 private:
  float* data_ = nullptr;
  std::size_t pitch_ = 0;
  int width_, height_;
};

}  // namespace lab02
