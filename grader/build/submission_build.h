// Building a submission: the student's files compiled for one backend and flavour, checked for
// symbols it may not use or define (symbol_policy.h) and for system calls of its own
// (instruction_policy.h), and linked with the lab's prebuilt harness.
#pragma once

#include <string>
#include <vector>

#include "backend.h"
#include "instruction_policy.h"
#include "lab_spec.h"
#include "manifest.h"
#include "process.h"
#include "symbol_policy.h"

namespace labkit {

struct BuildOutcome {
  bool ok = false;
  // What failed: "missing_file", "unreadable_file" (a FIFO, a link, a directory, too large),
  // "shadowed_header" (a changed copy of the lab's frozen header in the folder), "compile",
  // "forbidden_symbol", "forbidden_instruction" (a system call made by the object itself), "link",
  // "toolchain".
  std::string stage;
  std::string message;  // for the student: the compiler's own words, or ours
  std::string executable;
  bool timed_out = false;  // the compiler was stopped at the compile limit
  // What the compiler printed for a successful build (on the GPU backend's default flavour, with
  // ptxas's resource report of every kernel).
  std::string compiler_output;
};

class SubmissionBuilder {
 public:
  SubmissionBuilder(ProcessRunner& runner, const Manifest& manifest, const LabSpec& spec)
      : runner_(runner), manifest_(manifest), spec_(spec) {}
  // Virtual for the judge's unit tests, which script the builds made on first need.
  virtual ~SubmissionBuilder() = default;

  // Builds into `work_dir` (created if missing). `src_dir` holds the student's files.
  virtual BuildOutcome Build(const std::string& src_dir, const std::string& work_dir,
                             Backend backend, Flavour flavour);

  // Off: no symbol nor instruction check (tests of the sandbox behind them only;
  // GradeRequest::check_symbols).
  void set_check_symbols(bool on) { check_symbols_ = on; }

  // `nvcc -Xptxas -v` over the student's files for the modelled GPU; the raw ptxas text, or
  // empty with `error` set when nvcc is missing or the file does not compile.
  std::string ResourceReportText(const std::string& src_dir, std::string& error);

 private:
  std::vector<std::string> CompileCommand(const std::string& source, const std::string& object,
                                          Backend backend, Flavour flavour) const;
  std::vector<std::string> LinkCommand(const std::vector<std::string>& objects,
                                       const std::string& executable, Backend backend) const;
  std::vector<SymbolRefusal> CheckSymbols(const std::string& object, Backend backend) const;
  std::vector<InstructionRefusal> CheckInstructions(const std::string& object) const;
  // Why a file named like the lab's interface header in `src_dir` is refused, or "".
  std::string ShadowedHeader(const std::string& src_dir) const;
  std::string GpuArchFlag() const;

  ProcessRunner& runner_;
  const Manifest& manifest_;
  const LabSpec& spec_;
  bool check_symbols_ = true;
};

}  // namespace labkit
