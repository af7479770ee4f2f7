// Whether a submission's source compiles to the same lines on the CPU backend as on a GPU. The CPU
// backend grades what emu-cxx compiles; a GPU runs what nvcc's device pass compiles. A source that
// tells the two apart with the preprocessor (`#ifdef LABKIT_EMU`, a header only one of them has,
// `#if __CUDA_ARCH__` where the CPU backend did not define it) would be graded for code no GPU
// runs: a barrier compiled in for the grader alone, a race left in for the GPU (red team r7). The
// CPU backend defines the macros of nvcc's device pass for the GPU it models
// (emu/runtime/include/labkit_emu/cuda_emu.h), so that an honest source reads the same in both;
// this compares the two preprocessings line by line (-E -fdirectives-only: conditions resolved,
// macros not expanded) and names the first line of the student's that one keeps and the other
// does not.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "manifest.h"
#include "process.h"
#include "result.h"

namespace labkit {

// One line of a source that a preprocessing kept: the file it is physically in, as the markers
// name it, and its number there (from 1).
struct KeptLine {
  std::string file;
  int line = 0;
  bool operator==(const KeptLine& o) const { return file == o.file && line == o.line; }
  bool operator<(const KeptLine& o) const { return file != o.file ? file < o.file : line < o.line; }
};
// The lines that hold text in `preprocessed` (the output of -E -fdirectives-only, with its line
// markers), in the order they come: a header included in another order, or twice, shows.
using KeptLines = std::vector<KeptLine>;
KeptLines KeptLinesOf(const std::string& preprocessed);

struct LineDifference {
  std::string file;
  int line = 0;
  bool on_cpu_backend = false;  // whether the CPU backend's preprocessing keeps it
  bool order = false;           // both keep it, at other points among the student's lines
};

// The first place where the lines of files `is_students` accepts differ between the two
// preprocessings: a line one keeps and the other not, or the same lines in another order; none
// where they agree.
std::optional<LineDifference> FirstDifference(
    const KeptLines& cpu_backend, const KeptLines& gpu,
    const std::function<bool(const std::string&)>& is_students);

// The first line of `text` (from 1) that is, or looks like, one of the preprocessor's line
// markers (`# 12 "file" 1`), written in the source as a directive, in a comment or in a string,
// where a preprocessing's output would carry it as written; 0 for none. The comparison reads the
// markers to know whose line is whose, so a file with such a line is refused.
int FirstLineMarkerLike(const std::string& text);

// The refusal, first line first: where, which compile keeps the line, why that is refused, what
// to do. `line_text`: the line as written (empty where it cannot be read).
std::string DifferenceMessage(const LineDifference& d, const std::string& line_text);

// How to preprocess one source both ways: the CPU backend's compile (emu-cxx with -E) and nvcc's
// device pass (nvcc -E), each with -fdirectives-only, writing `<out>.cpu.ii` and `<out>.gpu.ii`.
struct ConditionalsCheck {
  std::vector<std::string> cpu_backend_prefix;  // emu-cxx and the compiler, before the options
  std::vector<std::string> gpu_prefix;          // nvcc and its architecture flag
  std::vector<std::string> options;             // the lab's include folder, -std
  std::string submission_dir;                   // the student's files: those in it alone
  double timeout_seconds = 60;
};

// The check as a submission in `submission_dir` of lab `lab` is built with the kit of `manifest`.
// Only the files in the submission's folder are compared: every other header (the CUDA toolkit's,
// the emulator's, the C++ library's of whichever compiler each uses) is the kit's or the
// system's, and the sandbox shows the student's code nothing else of its own.
ConditionalsCheck ConditionalsCheckFor(const Manifest& manifest, const std::string& lab,
                                       const std::string& arch_flag, double timeout_seconds,
                                       const std::string& submission_dir);

// What the comparison found for one source.
struct ConditionalsVerdict {
  std::string refusal;    // the student's refusal; "" where both keep the same lines
  std::string kit_fault;  // where a preprocessing of the kit's own probe fails too
};

// Compares the two preprocessings of `source`; scratch files go to `out_prefix`.*. A source that
// compiled but whose preprocessing here fails is refused with the preprocessor's words, unless a
// probe of the kit's own fails as well (the kit's fault, not graded).
ConditionalsVerdict CheckBackendConditionals(ProcessRunner& runner, const ConditionalsCheck& check,
                                             const std::string& source,
                                             const std::string& out_prefix);

}  // namespace labkit
