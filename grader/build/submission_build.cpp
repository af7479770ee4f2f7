#include "submission_build.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "backend_conditionals.h"
#include "cuda_arch.h"
#include "device_call_guard.h"
#include "header_policy.h"
#include "instruction_policy.h"
#include "kit_replay_program.h"
#include "link_wraps.h"
#include "student_image.h"
#include "symbol_policy.h"
#include "untrusted_file.h"

namespace labkit {
namespace fs = std::filesystem;

namespace {

std::string Basename(const std::string& path) { return fs::path(path).filename().string(); }

BuildOutcome Failure(std::string stage, std::string message) {
  BuildOutcome out;
  out.stage = std::move(stage);
  out.message = std::move(message);
  return out;
}

// emu-cxx's exit status when a counted compile refuses code whose memory accesses the count
// cannot see (emu/rewrite's kExitUncountedAccess, docs/DESIGN.md's emu contract; the test
// RealCpuBuild.UncountedAccessIsNamedByEmuCxxsOwnStatus pins the two together through the real
// emu-cxx).
constexpr int kEmuUncountedAccess = 65;

std::string CappedOutput(const ProcessResult& r) {
  std::string text = r.output;
  if (r.output_dropped > 0)
    text += "\n[... " + std::to_string(r.output_dropped) + " more bytes of output not shown]";
  return text;
}

// -Xlinker --wrap=X (nvcc) or -Wl,--wrap=X (g++) for every name of the harness's table.
template <std::size_t N>
void AddWraps(std::vector<std::string>& cmd, const char* const (&symbols)[N], bool nvcc) {
  for (const char* symbol : symbols)
    if (nvcc)
      cmd.insert(cmd.end(), {"-Xlinker", std::string("--wrap=") + symbol});
    else
      cmd.push_back(std::string("-Wl,--wrap=") + symbol);
}

// The kit's archives, the student's objects, the kit's archives again. The linker keeps the first
// copy it meets of an inline function or a template's instance (and of an inline variable), so
// the harness's own code must come first: with the student's object first, an instance it also
// emits (std::vector<labkit::LaunchRecord>'s, say, compiled after a macro that changes its body)
// would replace the harness's. A group: the harness's main() needs the lab's exercise table,
// which needs the student's functions, and the archives are read again after the objects for
// the runtime functions only the student's code calls.
void AddKitFirst(std::vector<std::string>& cmd, const std::vector<std::string>& libs,
                 const std::vector<std::string>& objects,
                 const std::vector<std::string>& start_group,
                 const std::vector<std::string>& end_group) {
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) cmd.insert(cmd.end(), objects.begin(), objects.end());
    cmd.insert(cmd.end(), start_group.begin(), start_group.end());
    cmd.insert(cmd.end(), libs.begin(), libs.end());
    cmd.insert(cmd.end(), end_group.begin(), end_group.end());
  }
}

}  // namespace

std::string SubmissionBuilder::GpuArchFlag() const {
  return ResolveCudaArch(manifest_.cuda_architectures).sm_flag;
}

std::vector<std::string> SubmissionBuilder::CompileCommand(const std::string& source,
                                                           const std::string& object,
                                                           Backend backend, Flavour flavour) const {
  const std::string lab_include = "-I" + manifest_.LabDir(spec_.id);
  if (backend == Backend::kGpu) {
    // -no-compress: nvcc 13 stores PTX compressed (and cubins, in some of its modes), which
    // labgrade does not expand; it reads both off this object's fatbinary (fatbin_resources.h,
    // fatbin_ptx.h) rather than trust a second compile the source could make differ.
    std::vector<std::string> cmd = {manifest_.nvcc, "-c",          "-std=c++17", "-O3", "-lineinfo",
                                    "-no-compress", GpuArchFlag(), lab_include,  "-MD", "-MF",
                                    object + ".d",  "-o",          object,       source};
    if (flavour == Flavour::kNoFma) cmd.insert(cmd.begin() + 1, "-fmad=false");
    return cmd;
  }
  // -MD: the headers the source included, for header_policy.h.
  std::vector<std::string> cmd = {
      manifest_.emu_cxx, manifest_.cxx, "-std=c++17", "-O2", "-g",  lab_include, "-MD", "-MF",
      object + ".d",     "-c",          source,       "-o",  object};
  if (flavour == Flavour::kNoFma) cmd.insert(cmd.begin() + 2, "-ffp-contract=off");
  // -O1: ThreadSanitizer's reports then name the lines as written. Its instrumentation cannot be
  // combined with AddressSanitizer's below: this build counts nothing.
  if (flavour == Flavour::kThreadSanitizer) {
    cmd.insert(cmd.end(), {"-fsanitize=thread", "-O1"});
    return cmd;
  }
  // Kernel AddressSanitizer's instrumentation with out-of-line calls and nothing else (no stack
  // or global redzones): every load and store calls __asan_{load,store}*_noabort, which the
  // emulator defines and counts with (emu/runtime/src/access_hooks.cpp) in a counting run, and
  // returns from at once in any other. In the graded builds themselves, so that the counted run is
  // the very program every other check ran: no code of the student's can tell it apart by its
  // own machine code or by which hooks are linked (THREAT_MODEL.md). -O2 as ever, so that what
  // stays in registers is not counted, as on a GPU. No __SANITIZE_ADDRESS__, which would only
  // tell the student's code it is instrumented.
  cmd.insert(cmd.end(),
             {"-fsanitize=kernel-address", "-fsanitize-recover=kernel-address",
              "--param=asan-instrumentation-with-call-threshold=0", "--param=asan-stack=0",
              "--param=asan-globals=0", "-U__SANITIZE_ADDRESS__"});
  // The C library's copies, compares and string scans stay calls (device_call_guard.h sends a
  // kernel's to the counting copies, or stops them): as builtins, g++ expands one whose size it
  // learns after instrumenting (memcpy of `4 * (n > 0)` in a loop over n) into plain, uncounted
  // moves. No _FORTIFY_SOURCE (Ubuntu's g++ defines it), whose inline wrappers call the
  // __builtin___memcpy_chk family. (The __builtin_ spellings: emu-cxx, uncounted_access.h.)
  for (const char* function : {"memcpy", "memmove", "memset", "mempcpy", "memcmp", "bcmp", "memchr",
                               "strlen", "strnlen", "strcmp", "strncmp", "strchr", "strrchr",
                               "strstr", "strcpy", "strncpy", "stpcpy", "strcat", "strncat"})
    cmd.push_back(std::string("-fno-builtin-") + function);
  cmd.push_back("-U_FORTIFY_SOURCE");
  return cmd;
}

std::vector<std::string> SubmissionBuilder::GpuLinkCommand(const std::vector<std::string>& libs,
                                                           const std::vector<std::string>& objects,
                                                           const std::string& executable) const {
  // --wrap: the harness sees every launch and copy (common/harness/link_wraps.h).
  std::vector<std::string> cmd = {manifest_.nvcc, GpuArchFlag(), "-o", executable};
  AddWraps(cmd, kGpuLinkWraps, /*nvcc=*/true);
  cmd.insert(cmd.end(), {"-Xlinker", "--export-dynamic"});
  AddKitFirst(cmd, libs, objects, {"-Xlinker", "--start-group"}, {"-Xlinker", "--end-group"});
  return cmd;
}

std::vector<std::string> SubmissionBuilder::LinkCommand(const std::vector<std::string>& objects,
                                                        const std::string& executable,
                                                        Backend backend) const {
  if (backend == Backend::kGpu)
    return GpuLinkCommand(manifest_.gpu_libs.at(spec_.id), objects, executable);
  std::vector<std::string> cmd;
  // --wrap: as above (common/harness/link_wraps.h).
  cmd = {manifest_.cxx, "-o", executable};
  AddWraps(cmd, kEmuLinkWraps, /*nvcc=*/false);
  AddKitFirst(cmd, manifest_.emu_libs.at(spec_.id), objects, {"-Wl,--start-group"},
              {"-Wl,--end-group"});
  cmd.insert(cmd.end(), {manifest_.boost_context, manifest_.zydis, "-pthread", "-rdynamic",
                         "-no-pie", "-ldl"});
  // Where each object's data landed, by section (student_image.h, StudentDataFromMap), and the
  // student's writable data in pages of its own (StudentDataScript).
  cmd.push_back("-Wl,-Map=" + StudentMapPath(executable));
  cmd.push_back("-Wl,-T," + StudentDataScriptPath(executable));
  return cmd;
}

Result<std::string> SubmissionBuilder::Listing(const Command& tool, const std::string& file) const {
  const ProcessResult r = runner_.Run(tool);
  // No such tool (binutils is a dependency): nothing to check with. The link still catches clashes.
  if (!r.started) return std::string();
  // The object made the tool fail, time out or print more than is kept: the names or instructions
  // it did not get to would go unchecked (a function name of a megabyte sorts first in nm's
  // listing and pushes every call after it past the limit).
  if (!r.Succeeded() || r.output_dropped > 0)
    return MakeError(file + " cannot be checked: " + tool.argv.front() + "'s listing of it " +
                     (r.Succeeded() ? "is longer than the grader reads (a name of enormous length?)"
                                    : "failed (" + r.Describe() + ")") +
                     ". Give your functions and variables names of ordinary length.");
  return r.output;
}

Result<std::vector<ObjectSymbol>> SubmissionBuilder::Symbols(const std::string& object,
                                                             const std::string& file) const {
  Command nm;
  nm.argv = {"nm", "-g", object};
  nm.timeout_seconds = 30;
  const auto listing = Listing(nm, file);
  if (!listing) return MakeError(listing.error());
  return ParseNmListing(*listing);
}

Result<std::string> SubmissionBuilder::VariableSections(const std::string& object,
                                                        const std::string& file) const {
  Command nm;
  nm.argv = {"nm", "-S", "--defined-only", "-f", "sysv", object};
  nm.timeout_seconds = 30;
  return Listing(nm, file);
}

std::string SubmissionBuilder::GuardKernelCalls(const std::string& object,
                                                const std::vector<ObjectSymbol>& symbols,
                                                std::vector<std::string>& stub_objects) const {
  const DeviceCallGuard guard = GuardDeviceCalls(symbols);
  if (guard.empty()) return "";
  const std::string renames = object + ".kernel_calls";
  const std::string stubs = object + ".kernel_calls.s";
  if (!(std::ofstream(renames, std::ios::trunc) << guard.redefinitions).flush())
    return "the grader could not write " + renames;
  Command objcopy;
  objcopy.argv = {"objcopy", "--redefine-syms=" + renames, object};
  objcopy.timeout_seconds = 30;
  objcopy.output_limit = 64 * 1024;
  if (const ProcessResult r = runner_.Run(objcopy); !r.Succeeded())
    return "objcopy failed on " + object + ": " + CappedOutput(r);
  if (guard.stubs.empty()) return "";
  if (!(std::ofstream(stubs, std::ios::trunc) << guard.stubs).flush())
    return "the grader could not write " + stubs;
  Command assemble;
  assemble.argv = {manifest_.cxx, "-c", stubs, "-o", stubs + ".o"};
  assemble.timeout_seconds = 30;
  assemble.output_limit = 64 * 1024;
  if (const ProcessResult r = runner_.Run(assemble); !r.Succeeded())
    return "the kernel-call stubs did not assemble: " + CappedOutput(r);
  stub_objects.push_back(stubs + ".o");
  return "";
}

Result<std::string> SubmissionBuilder::Disassembly(const std::string& object,
                                                   const std::string& file) const {
  Command objdump;
  objdump.argv = {"objdump", "-d", "-C", "--no-show-raw-insn", object};
  objdump.timeout_seconds = 30;
  objdump.output_limit = 64u << 20;
  return Listing(objdump, file);
}

std::string SubmissionBuilder::ShadowedHeader(const std::string& src_dir) const {
  if (spec_.interface.empty()) return "";
  const std::string copy = src_dir + "/" + spec_.interface;
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(copy, ec))) return "";
  const std::string frozen = manifest_.LabDir(spec_.id) + "/" + spec_.interface;
  const auto theirs = ReadUntrustedFile(copy, kMaxSourceBytes);
  const auto ours = ReadUntrustedFile(frozen, kMaxSourceBytes);
  if (theirs && ours && *theirs == *ours) return "";  // an unchanged copy changes nothing
  return "the folder holds " + spec_.interface +
         (theirs ? ", a changed copy" : ", not a plain file but something named like a copy") +
         " of the lab's frozen header: `#include \"" + spec_.interface +
         "\"` would find it before the grader's own, which the harness your code is linked with "
         "was built against. The grader does not compile against it: delete it, or restore it "
         "unchanged.";
}

ProcessResult SubmissionBuilder::Compile(const std::string& source, const std::string& object,
                                         Backend backend, Flavour flavour) const {
  Command compile;
  compile.argv = CompileCommand(source, object, backend, flavour);
  // Without the checks (tests of what stands behind them), emu-cxx accepts inline assembly too.
  if (backend == Backend::kCpu && !check_symbols_) compile.env["LABKIT_EMU_ALLOW_UNCOUNTED"] = "1";
  compile.timeout_seconds = spec_.limits.CompileSeconds();
  compile.output_limit = 64 * 1024;
  return runner_.Run(compile);
}

BuildOutcome SubmissionBuilder::Build(const std::string& src_dir, const std::string& work_dir,
                                      Backend backend, Flavour flavour) {
  const bool have_toolchain = backend == Backend::kGpu
                                  ? !manifest_.nvcc.empty() && manifest_.gpu_libs.count(spec_.id)
                                  : manifest_.emu_backend && manifest_.emu_libs.count(spec_.id);
  if (!have_toolchain)
    return Failure("toolchain", std::string("this build of the kit has no ") + ToString(backend) +
                                    " backend for lab " + spec_.id);
  std::error_code ec;
  fs::create_directories(work_dir, ec);

  if (const std::string shadow = ShadowedHeader(src_dir); !shadow.empty())
    return Failure("shadowed_header", shadow);

  std::vector<std::string> objects;
  std::vector<std::string> stub_objects;  // device_call_guard.h: linked, but not the student's
  // CPU backend: the student's __constant__ variables (student_image.h), held to a GPU's 64 KiB.
  std::map<std::string, long long> constants;
  bool objects_free_of_fma = true;
  for (const std::string& file : spec_.student_files) {
    const std::string source = src_dir + "/" + file;
    // Opened the way every file of a submission is (untrusted_file.h): a FIFO would hang the
    // compiler until its limit, a link would compile a file that is not the student's.
    auto readable = ReadUntrustedFile(source, kMaxSourceBytes);
    if (!readable && IsMissingFileError(readable.error()))
      return Failure("missing_file",
                     "the submission has no " + file + " (looked for " + source +
                         "); every lab needs the files listed in lab.yaml: " + file);
    if (!readable)
      return Failure("unreadable_file", file + " cannot be graded: " + readable.error() +
                                            ". Hand in the source file itself.");
    const std::string object = work_dir + "/" + Basename(file) + ".o";
    const ProcessResult r = Compile(source, object, backend, flavour);
    if (!r.Succeeded() && !r.timed_out) {
      if (const std::string broken = CompilerFault(work_dir, backend, flavour); !broken.empty())
        return Failure("toolchain",
                       "the kit's compiler does not work here: a file of the kit's own, known to "
                       "compile, failed as " +
                           file + " did (" + ToString(flavour) + " build):\n" + broken);
    }
    if (backend == Backend::kCpu && !r.timed_out && r.exit_code == kEmuUncountedAccess)
      return Failure("uncounted_access", CappedOutput(r));  // emu's words: the cause and place
    if (!r.Succeeded()) {
      std::string why = r.timed_out ? "the compiler did not finish within " +
                                          std::to_string(int(spec_.limits.CompileSeconds())) + " s"
                                    : "it does not compile";
      BuildOutcome failed = Failure(
          "compile", file + ": " + why + " (" + ToString(flavour) + " build):\n" + CappedOutput(r));
      failed.timed_out = r.timed_out;
      return failed;
    }
    const bool cpu = backend == Backend::kCpu;
    // backend_conditionals.h: the CPU backend compiles the lines a GPU would (needs nvcc); the
    // ThreadSanitizer build too, whose compiler defines __SANITIZE_THREAD__ (the nofma build's
    // option defines nothing).
    const bool tsan = flavour == Flavour::kThreadSanitizer;
    if (cpu && check_symbols_ && (flavour == Flavour::kDefault || tsan) &&
        !manifest_.nvcc.empty()) {
      ConditionalsCheck check =
          ConditionalsCheckFor(manifest_, spec_.id, GpuArchFlag(), 60, src_dir);
      if (tsan) check.cpu_backend_prefix.push_back("-fsanitize=thread");
      const ConditionalsVerdict same = CheckBackendConditionals(runner_, check, source, object);
      if (!same.kit_fault.empty()) return Failure("toolchain", same.kit_fault);
      if (!same.refusal.empty()) return Failure("backend_conditionals", same.refusal);
    }
    std::optional<Result<std::vector<ObjectSymbol>>> symbols;
    if (check_symbols_ || cpu) symbols = Symbols(object, file);
    if (symbols && !*symbols) return Failure("unchecked_object", symbols->error());
    if (check_symbols_) {
      // header_policy.h: no header that stands in for a refused call.
      const auto headers = IncludedHeadersRefusal(object + ".d", file, *readable);
      if (!headers) return Failure("unchecked_object", headers.error());
      if (!headers->empty()) return Failure("forbidden_header", *headers);
      // symbol_policy.h: only the library calls the labs need, and no library's names defined.
      const std::vector<SymbolRefusal> refused = RefusedSymbols(**symbols, backend);
      if (!refused.empty()) return Failure("forbidden_symbol", RefusalMessage(file, refused));
      // instruction_policy.h: no system call but through an allowed library function.
      const auto listing = Disassembly(object, file);
      if (!listing) return Failure("unchecked_object", listing.error());
      const std::vector<InstructionRefusal> instructions = SystemCallInstructions(*listing);
      if (!instructions.empty())
        return Failure("forbidden_instruction", InstructionRefusalMessage(file, instructions));
      objects_free_of_fma = objects_free_of_fma && FreeOfFusedMultiplyAdd(*listing);
    } else {
      objects_free_of_fma = false;  // not read: nothing is known
    }
    // device_call_guard.h: a kernel's library calls counted or stopped, after the checks above
    // have read the object's own names.
    if (cpu)
      if (const std::string broken = GuardKernelCalls(object, **symbols, stub_objects);
          !broken.empty())
        return Failure("toolchain", broken);
    if (cpu) {
      const auto listing = VariableSections(object, file);
      if (!listing) return Failure("unchecked_object", listing.error());
      if (const auto tls = ThreadLocalVariablesFromNm(*listing); !tls.empty())
        return Failure("compile", ThreadLocalRefusal(file, tls));
      const auto own = ConstantVariablesFromNm(*listing);
      constants.insert(own.begin(), own.end());
    }
    objects.push_back(object);
  }
  if (const std::string over = ConstantMemoryExceeded(constants); !over.empty())
    return Failure("compile", over);

  BuildOutcome out;
  out.free_of_fma = objects_free_of_fma;
  out.executable = work_dir + "/harness";
  Command link;
  std::vector<std::string> linked = objects;
  linked.insert(linked.end(), stub_objects.begin(), stub_objects.end());
  if (backend == Backend::kCpu) {
    const auto script = StudentDataScript(objects);
    if (!script) return Failure("toolchain", "the grader cannot link here: " + script.error());
    if (!(std::ofstream(StudentDataScriptPath(out.executable), std::ios::trunc) << *script).flush())
      return Failure("toolchain",
                     "the grader could not write " + StudentDataScriptPath(out.executable));
  }
  link.argv = LinkCommand(linked, out.executable, backend);
  if (flavour == Flavour::kThreadSanitizer)
    link.argv.insert(link.argv.begin() + 1, "-fsanitize=thread");
  link.timeout_seconds = 120;
  link.output_limit = 64 * 1024;
  const ProcessResult r = runner_.Run(link);
  if (!r.Succeeded())
    return Failure("link",
                   "linking your code with the grader's harness failed (a function of "
                   "the interface missing or renamed, or a library the lab does not "
                   "allow?):\n" +
                       CappedOutput(r));
  // What a replay may use of the program (student_image.h), beside it, out of any student
  // process's reach (each may write only its own folder: docs/SANDBOX.md).
  std::set<std::string> constant_names;
  for (const auto& [name, bytes] : constants) constant_names.insert(name);
  const std::string image = WriteStudentImage(runner_, objects, out.executable,
                                              out.executable + ".image.json", constant_names);
  if (!image.empty())
    return Failure("toolchain", "the grader could not list the program: " + image);
  // The kit's replay program and the student's device code for it (kit_replay_program.h): on a
  // GPU every replay runs there, never in the student's own program.
  fs::remove(DeviceCodePath(out.executable), ec);
  if (backend == Backend::kGpu && !manifest_.gpu_replay_libs.empty()) {
    const std::string program = KitReplayProgram(work_dir);
    if (program.empty())
      return Failure("toolchain", "the grader could not link its own replay program");
    const DeviceCodeOutcome code = WriteDeviceCode(runner_, objects, out.executable,
                                                   StudentSymbolsPath(out.executable), program);
    if (code.mixed_section >= 0)
      return Failure("compile", MixedSectionMessage(spec_.student_files.at(code.mixed_section)));
    if (!code.written)
      return Failure("toolchain",
                     "the grader could not take the device code out of the "
                     "submission's objects: " +
                         code.kit_fault);
  }
  out.ok = true;
  return out;
}

std::string SubmissionBuilder::KitReplayProgram(const std::string& work_dir) const {
  if (manifest_.gpu_replay_libs.empty()) return "";
  return LinkedOnceThenCopied(runner_, manifest_.gpu_replay_libs, work_dir + "/kit_replay",
                              [&](const std::string& out) {
                                Command link;
                                link.argv = GpuLinkCommand(manifest_.gpu_replay_libs, {}, out);
                                link.timeout_seconds = 120;
                                link.output_limit = 64 * 1024;
                                return link;
                              });
}

std::string SubmissionBuilder::Ptxas() const {
  return (fs::path(manifest_.nvcc).parent_path() / "ptxas").string();
}

Result<std::vector<std::string>> SubmissionBuilder::Ptx(const std::string& src_dir,
                                                        const std::string& out_dir) {
  if (ptx_) return *ptx_;
  if (manifest_.nvcc.empty()) {
    ptx_ = MakeError(
        "nvcc is not installed here, so kernel resources (shared memory, registers) cannot be "
        "read");
    return *ptx_;
  }
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  std::vector<std::string> files;
  for (std::size_t i = 0; i < spec_.student_files.size(); ++i) {
    const std::string& file = spec_.student_files[i];
    files.push_back(out_dir + "/student" + std::to_string(i) + ".ptx");
    Command cmd;
    // The modelled GPU's architecture on the CPU backend, the build's own on the GPU backend.
    cmd.argv = {manifest_.nvcc,
                "-ptx",
                "-std=c++17",
                "-O3",
                ResolveCudaArch(manifest_.cuda_architectures).compute_flag,
                "-I" + manifest_.LabDir(spec_.id),
                src_dir + "/" + file,
                "-o",
                files.back()};
    cmd.timeout_seconds = spec_.limits.CompileSeconds();
    const ProcessResult r = runner_.Run(cmd);
    if (!r.Succeeded()) {
      ptx_ = MakeError(file + " does not compile with nvcc:\n" + CappedOutput(r));
      return *ptx_;
    }
  }
  ptx_ = std::move(files);
  return *ptx_;
}

Result<std::string> SubmissionBuilder::ResourceReportText(const std::string& src_dir,
                                                          const std::string& out_dir) {
  auto ptx = Ptx(src_dir, out_dir);
  if (!ptx) return MakeError(ptx.error());
  // compute_90 -> sm_90: the machine code of the PTX's own architecture.
  const std::string compute = ResolveCudaArch(manifest_.cuda_architectures).compute_flag;
  const std::string sm = "-arch=sm_" + compute.substr(compute.find("compute_") + 8);
  std::string text;
  for (const std::string& file : *ptx) {
    Command cmd;
    cmd.argv = {Ptxas(), "-v", sm, file, "-o", "/dev/null"};
    cmd.timeout_seconds = spec_.limits.CompileSeconds();
    const ProcessResult r = runner_.Run(cmd);
    if (!r.Succeeded())
      return MakeError("ptxas failed on the PTX of the submission:\n" + CappedOutput(r));
    text += r.output;
  }
  return text;
}

}  // namespace labkit
