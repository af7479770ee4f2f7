// Building a submission: the student's files compiled for one backend and flavour, checked for
// symbols it may not use or define (symbol_policy.h) and for system calls of its own
// (instruction_policy.h), and linked with the lab's prebuilt harness.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend.h"
#include "instruction_policy.h"
#include "lab_spec.h"
#include "manifest.h"
#include "process.h"
#include "result.h"
#include "symbol_policy.h"

namespace labkit {

struct BuildOutcome {
  bool ok = false;
  // What failed: "missing_file", "unreadable_file" (a FIFO, a link, a directory, too large),
  // "shadowed_header" (a changed copy of the lab's frozen header in the folder), "compile",
  // "forbidden_header" (a header that stands in for a refused call, header_policy.h),
  // "forbidden_symbol", "forbidden_instruction" (a system call made by the object itself),
  // "uncounted_access" (CPU backend: code its count of memory accesses cannot see, in emu-cxx's
  // words), "backend_conditionals" (CPU backend: lines it compiles that a GPU does not, or the
  // other way round, backend_conditionals.h),
  // "unchecked_object" (nm's or objdump's listing of it could not be read whole), "link",
  // "toolchain".
  std::string stage;
  std::string message;  // for the student: the compiler's own words, or ours
  std::string executable;
  bool timed_out = false;  // the compiler was stopped at the compile limit
  // Every object was disassembled and none holds a fused multiply-add instruction
  // (FreeOfFusedMultiplyAdd): compiled with -ffp-contract=off, it would be the same code.
  bool free_of_fma = false;
  // The default build's outcome, standing for another flavour that would have compiled to the
  // same program (build_plan.h): that flavour's runs are the default build's own.
  bool reuses_default = false;
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

  // The kit's replay program (kit_replay_program.h) in `work_dir`: linked on first need, then
  // copied. "" where it cannot be made. Also a batch's warm replay servers' program.
  std::string KitReplayProgram(const std::string& work_dir) const;

  // Off: no symbol nor instruction check (tests of the sandbox behind them only;
  // GradeRequest::check_symbols).
  void set_check_symbols(bool on) { check_symbols_ = on; }

  // The student's files compiled to PTX for the modelled GPU (`nvcc -ptx`), one file each in
  // `out_dir`, made on first need and kept for the checks after it (which kernels read
  // __constant__ memory, ptxas's resource report). Errors: nvcc missing, a file that does not
  // compile.
  Result<std::vector<std::string>> Ptx(const std::string& src_dir, const std::string& out_dir);
  // ptxas's report of every kernel's registers, shared memory and barriers (`ptxas -v` on that
  // PTX). ptxas runs as a process of its own so that its output is the report alone: in an nvcc
  // run the front end's warnings print into the same stream, and a `#warning` in the student's
  // file could write a line that reads like ptxas's.
  Result<std::string> ResourceReportText(const std::string& src_dir, const std::string& out_dir);

 private:
  std::vector<std::string> CompileCommand(const std::string& source, const std::string& object,
                                          Backend backend, Flavour flavour) const;
  // `source` compiled into `object`, under the lab's compile limit.
  ProcessResult Compile(const std::string& source, const std::string& object, Backend backend,
                        Flavour flavour) const;
  std::vector<std::string> LinkCommand(const std::vector<std::string>& objects,
                                       const std::string& executable, Backend backend) const;
  // nvcc's link of `objects` with the kit's archives `libs`, the harness's wraps on.
  std::vector<std::string> GpuLinkCommand(const std::vector<std::string>& libs,
                                          const std::vector<std::string>& objects,
                                          const std::string& executable) const;
  // What `tool` (nm, objdump) lists of the object of `file`: "" where the tool is missing, an
  // error where the listing could not be read whole.
  Result<std::string> Listing(const Command& tool, const std::string& file) const;
  // `nm -g` of the object (symbol_policy.h reads it, and device_call_guard.h on the CPU backend).
  Result<std::vector<ObjectSymbol>> Symbols(const std::string& object,
                                            const std::string& file) const;
  // CPU backend: nm's System V listing of the object's defined names, with their sections (its
  // __constant__ and thread-local variables: student_image.h).
  Result<std::string> VariableSections(const std::string& object, const std::string& file) const;
  // CPU backend: renames the object's library calls (device_call_guard.h) and assembles the stubs
  // they need into `stub_objects`. "" when done, else what went wrong (the kit's fault).
  std::string GuardKernelCalls(const std::string& object, const std::vector<ObjectSymbol>& symbols,
                               std::vector<std::string>& stub_objects) const;
  // objdump's listing of the object's machine code (instruction_policy.h reads it).
  Result<std::string> Disassembly(const std::string& object, const std::string& file) const;
  // "" when the compiler compiles a file of the kit's own, written into `work_dir`, the way it
  // compiles the submission; else what it printed. Asked only after a submission's file failed
  // to compile: a compiler the sandbox cannot run fails every file, and that is the kit's fault.
  std::string CompilerFault(const std::string& work_dir, Backend backend, Flavour flavour) const;
  // Why a file named like the lab's interface header in `src_dir` is refused, or "".
  std::string ShadowedHeader(const std::string& src_dir) const;
  std::string GpuArchFlag() const;
  // ptxas beside the nvcc of the manifest.
  std::string Ptxas() const;

  ProcessRunner& runner_;
  const Manifest& manifest_;
  const LabSpec& spec_;
  bool check_symbols_ = true;
  std::optional<Result<std::vector<std::string>>> ptx_;  // Ptx()'s answer, once asked
};

}  // namespace labkit
