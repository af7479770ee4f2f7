// inputs: deterministic test matrices, and raw float32 matrix files.
//
// Matrices come from (seed, case id, matrix name) alone, through a generator written here
// (splitmix64), not <random>'s distributions, whose output differs between standard libraries: the
// same seed gives the same bits on every machine, so a student's failing case can be replayed.
//
// Matrix files are little-endian IEEE float32, row-major, no header (the harness protocol in
// docs/DESIGN.md); the sizes come from the request.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lab_spec.h"
#include "result.h"

namespace labkit {

enum class ValueKind {
  // Sign random, magnitude in [1/16, 1) with all 24 significand bits random: products and sums
  // round, so the forward-error check has something to check, and no value is zero.
  kFullMantissa,
  // Integers in [-4, 4]: every product and partial sum is an integer below 2^24 (for n < 2^20),
  // so any summation order gives the same float bits: for bit-exact self-tests.
  kSmallIntegers,
};

// The generator's state for one matrix: mixes the seed, the case id and the matrix name.
uint64_t MatrixSeed(uint64_t seed, const std::string& case_id, const std::string& matrix);

std::vector<float> GenerateMatrix(uint64_t seed, const std::string& case_id,
                                  const std::string& matrix, int64_t rows, int64_t cols,
                                  ValueKind kind);

struct ProductInputs {
  std::vector<float> a;  // m x n
  std::vector<float> b;  // n x k
};

// A and B of a case (matrix names "A" and "B").
ProductInputs GenerateProductInputs(uint64_t seed, const std::string& case_id, const Shape& shape,
                                    ValueKind kind);

// Reads a rows x cols matrix. Errors: "c0.C.f32: cannot open: No such file or directory",
// "c0.C.f32: expected 3364 bytes (29x29 floats), found 3360".
Result<std::vector<float>> ReadFloatFile(const std::string& path, int64_t rows, int64_t cols);

Status WriteFloatFile(const std::string& path, const std::vector<float>& values);

// The bytes of a float file, and back: for tests and in-memory use.
std::string EncodeFloats(const std::vector<float>& values);
std::vector<float> DecodeFloats(const std::string& bytes);  // Precondition: size % 4 == 0

}  // namespace labkit
