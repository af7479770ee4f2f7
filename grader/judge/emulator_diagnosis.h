// GPU backend: the cause of wrong values that no GPU-side check explains, found by running the
// same cases of the same submission on the CPU emulator. A GPU has no check of a barrier that only
// some threads reach, nor of a read of shared memory no thread wrote; the emulator reports the
// first (a diagnostic line stamped with the case) and makes the second visible (fresh shared and
// device memory hold the harness's NaN pattern, which then comes through to C). The emulator's
// build is made only when a case needs it, so a submission with right values pays nothing.
// Only the message changes: the verdict and its points stay the GPU's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "exercise_grader.h"
#include "harness_runner.h"

namespace labkit {

// What the emulator found, as a value: each kind is decided from the emulator's run (its
// diagnostics, its output's bits) and the GPU's outputs, never from a message.
struct EmulatorCause {
  enum class Kind {
    kNone,        // not looked for (no build, no source), or nothing the GPU's message lacks
    kDiagnostic,  // the emulator reported the case (a divergent barrier, an out-of-bounds read...)
    kNeverWrittenMemory,  // elements the GPU wrote came out of the emulator as its NaN pattern
  };
  Kind kind = Kind::kNone;
  std::string text;  // the cause for the student, one line; empty when kind is kNone
  // The case it was found in: the GPU's failing case, or (kNeverWrittenMemory only) another one.
  std::size_t case_index = 0;
  // kNeverWrittenMemory: the first such element, the GPU's value there, how many there are.
  int64_t row = 0, col = 0;
  float gpu_value = 0;
  int64_t elements = 0;
  bool found() const { return kind != Kind::kNone; }
};

// Elements that the GPU wrote (`gpu`, not the harness's fill) and the emulator left as its NaN
// pattern (`emulator`), both the m x k output of `shape`: kNeverWrittenMemory, or kNone.
EmulatorCause NeverWrittenMemoryCause(const Shape& shape, const std::vector<float>& gpu,
                                      const std::vector<float>& emulator);

// Runs `cases` of exercise run `run` (its harness id, parameters included) on the emulator, in
// `dir`, and says what it found; `gpu` is the GPU's run of them, in which case `failed` came out
// wrong. A diagnostic counts only for that case (never one of another case), and only when the
// emulator too gets the case wrong. Memory never written may show in another case: a partial
// tile left unfilled holds an earlier tile's values on both machines, and only where no earlier
// tile was loaded (n < TILE) does the emulator's NaN come through. Builds the submission for the
// emulator on first need (GradeEnv::emulator_build); a build that fails (code the emulator cannot
// compile) gives kNone.
EmulatorCause CauseOnEmulator(GradeEnv& env, const Exercise& run, const std::string& dir,
                              const std::vector<MatrixCase>& cases, const HarnessRun& gpu,
                              std::size_t failed);

// On the GPU backend, the message `gpu_failure` for case `failed` of `gpu` (whose values came out
// wrong) with the emulator's cause on its first line, or `gpu_failure` itself when the emulator
// found none. On the CPU backend, `gpu_failure` as it is.
std::string WithCauseFromEmulator(GradeEnv& env, const Exercise& run, const std::string& dir,
                                  const std::vector<MatrixCase>& cases, const HarnessRun& gpu,
                                  std::size_t failed, const std::string& gpu_failure);

}  // namespace labkit
