// The small valid lab.yaml the spec's tests edit, and two helpers, shared by lab_spec_test.cpp and
// lab_spec_query_test.cpp.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "lab_spec.h"

namespace labkit {

// A small valid lab. Line numbers matter: tests below edit single lines and expect messages that
// name them.
inline const char* const kLab = R"(id: 99_demo
title: Demo lab
handout: handouts/99_demo.md
student_files: [matmul.cu]
interface: matmul_lab.cuh
harness: matmul
tile: 16
tolerance: {model: forward_error, nofma: exact}
exercises:
  - id: rows
    title: Rows
    function: matmul_rows
    kernel: matmul_rows_kernel
    given: true
    points: 0
    shapes: any
  - id: tiled
    title: Tiled
    function: matmul_tiled
    kernel: matmul_tiled_kernel
    points: 30
    shapes: any
    exact_without_fma: true
    technique: {min_static_shared_bytes: 2048, uses_barrier: true}
shapes:
  any:
    - [1, 1, 1]
    - [29, 29, 29]
speed:
  exercise: tiled
  points: 20
  size: [256, 256, 256]
  input_sets: 2
  full_at: 0.8
  zero_at: 1.0
limits: {compile_seconds: 120, run_seconds: 60, output_bytes: 1048576}
)";

// kLab with `from` replaced by `to` (the first occurrence, which must exist).
inline std::string Edit(const std::string& from, const std::string& to) {
  std::string s = kLab;
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return s.replace(at, from.size(), to);
}

inline std::string ErrorOf(const std::string& yaml) {
  Result<LabSpec> r = ParseLabSpec(yaml);
  return r.ok() ? "(no error)" : r.error();
}

}  // namespace labkit
