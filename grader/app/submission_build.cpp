#include "submission_build.h"

#include <sys/stat.h>

#include <filesystem>
#include <iterator>
#include <regex>
#include <sstream>

#include "cuda_arch.h"
#include "link_wraps.h"

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

std::string CappedOutput(const ProcessResult& r) {
  std::string text = r.output;
  if (r.output_dropped > 0)
    text += "\n[... " + std::to_string(r.output_dropped) + " more bytes of output not shown]";
  return text;
}

}  // namespace

bool IsForbiddenDefinition(const std::string& symbol) {
  // Defining one of these would replace the kit's or CUDA's own code inside the harness: a
  // redefined cudaEventElapsedTime could report any time it liked.
  // __wrap_*: the harness's link-time wrappers (link_wraps.h), which note launches and copies.
  static const std::regex forbidden(
      "^(main|cuda[A-Za-z0-9_]*|cu[A-Z][A-Za-z0-9_]*|__cuda[A-Za-z0-9_]*|_ZN6labkit.*|_ZN3emu.*|"
      "nvtx[A-Za-z0-9_]*|cublas.*|_Z[0-9]+cuda.*|__wrap_.*|__real_.*)$");
  return std::regex_match(symbol, forbidden);
}

bool IsForbiddenReference(const std::string& symbol) {
  // With --wrap=X the linker sends __real_X to the runtime's own X: a call by that name would
  // slip past the harness's wrapper of X. Looking functions up at run time (dlsym, the driver
  // API's entry points) would too; no lab needs either.
  static const std::regex forbidden(
      "^(__real_.*|dlsym|dlvsym|dlopen|dlmopen|cudaGetDriverEntryPoint.*|cuGetProcAddress.*)"
      "(@.*)?$");
  return std::regex_match(symbol, forbidden);
}

namespace {

// -Xlinker --wrap=X (nvcc) or -Wl,--wrap=X (g++) for every name of the harness's table.
template <std::size_t N>
void AddWraps(std::vector<std::string>& cmd, const char* const (&symbols)[N], bool nvcc) {
  for (const char* symbol : symbols) {
    if (nvcc) {
      cmd.insert(cmd.end(), {"-Xlinker", std::string("--wrap=") + symbol});
    } else {
      cmd.push_back(std::string("-Wl,--wrap=") + symbol);
    }
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
    std::vector<std::string> cmd = {manifest_.nvcc, "-c",        "-std=c++17", "-O3",  "-lineinfo",
                                    GpuArchFlag(),  lab_include, "-o",         object, source};
    if (flavour == Flavour::kNoFma) cmd.insert(cmd.begin() + 1, "-fmad=false");
    // ptxas's resource report of the kernels that really run, read by the technique checks: one
    // nvcc run fewer per submission than compiling again for it.
    if (flavour == Flavour::kDefault) cmd.insert(cmd.begin() + 1, {"-Xptxas", "-v"});
    return cmd;
  }
  std::vector<std::string> cmd = {manifest_.emu_cxx, manifest_.cxx, "-std=c++17", "-O2", "-g",
                                  lab_include,       "-c",          source,       "-o",  object};
  if (flavour == Flavour::kNoFma) cmd.insert(cmd.begin() + 2, "-ffp-contract=off");
  // -O1: ThreadSanitizer's reports then name the lines as written.
  if (flavour == Flavour::kThreadSanitizer) cmd.insert(cmd.end(), {"-fsanitize=thread", "-O1"});
  return cmd;
}

std::vector<std::string> SubmissionBuilder::LinkCommand(const std::vector<std::string>& objects,
                                                        const std::string& executable,
                                                        Backend backend) const {
  std::vector<std::string> cmd;
  if (backend == Backend::kGpu) {
    // --wrap: the harness sees every launch and copy (common/harness/link_wraps.h).
    cmd = {manifest_.nvcc, GpuArchFlag(), "-o", executable};
    AddWraps(cmd, kGpuLinkWraps, /*nvcc=*/true);
    cmd.insert(cmd.end(), {"-Xlinker", "--export-dynamic"});
    cmd.insert(cmd.end(), objects.begin(), objects.end());
    // A group: the harness's main() needs the lab's exercise table, which needs the student's
    // functions; one pass over the archives would miss the earlier ones.
    cmd.insert(cmd.end(), {"-Xlinker", "--start-group"});
    const auto& libs = manifest_.gpu_libs.at(spec_.id);
    cmd.insert(cmd.end(), libs.begin(), libs.end());
    cmd.insert(cmd.end(), {"-Xlinker", "--end-group"});
    return cmd;
  }
  // --wrap: as above (common/harness/link_wraps.h).
  cmd = {manifest_.cxx, "-o", executable};
  AddWraps(cmd, kEmuLinkWraps, /*nvcc=*/false);
  cmd.insert(cmd.end(), objects.begin(), objects.end());
  cmd.push_back("-Wl,--start-group");  // as above
  const auto& libs = manifest_.emu_libs.at(spec_.id);
  cmd.insert(cmd.end(), libs.begin(), libs.end());
  cmd.push_back("-Wl,--end-group");
  cmd.insert(cmd.end(), {manifest_.boost_context, "-pthread", "-rdynamic", "-no-pie", "-ldl"});
  return cmd;
}

std::string SubmissionBuilder::CheckSymbols(const std::string& object) const {
  Command nm;
  nm.argv = {"nm", "-g", object};
  nm.timeout_seconds = 30;
  const ProcessResult r = runner_.Run(nm);
  if (!r.Succeeded()) return "";  // no nm: nothing to check with (the link still catches clashes)
  std::istringstream lines(r.output);
  std::string line, found;
  while (std::getline(lines, line)) {
    // "ADDRESS TYPE NAME" for a definition, "U NAME" (no address) for a reference.
    std::istringstream fields(line);
    std::vector<std::string> f{std::istream_iterator<std::string>(fields), {}};
    if (f.size() < 2) continue;
    const std::string& symbol = f.back();
    const bool defined = f.size() >= 3 && f[f.size() - 2] != "U";
    if (defined ? IsForbiddenDefinition(symbol) : IsForbiddenReference(symbol))
      found += (found.empty() ? "" : ", ") + symbol;
  }
  return found;
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

  std::vector<std::string> objects;
  std::string compiler_output;
  for (const std::string& file : spec_.student_files) {
    const std::string source = src_dir + "/" + file;
    if (!fs::is_regular_file(source))
      return Failure("missing_file",
                     "the submission has no " + file + " (looked for " + source +
                         "); every lab needs the files listed in lab.yaml: " + file);
    const std::string object = work_dir + "/" + Basename(file) + ".o";
    Command compile;
    compile.argv = CompileCommand(source, object, backend, flavour);
    compile.timeout_seconds = spec_.limits.compile_seconds > 0 ? spec_.limits.compile_seconds : 120;
    compile.output_limit = 64 * 1024;
    const ProcessResult r = runner_.Run(compile);
    if (!r.Succeeded()) {
      std::string why = r.timed_out ? "the compiler did not finish within " +
                                          std::to_string(int(compile.timeout_seconds)) + " s"
                                    : "it does not compile";
      BuildOutcome failed = Failure(
          "compile", file + ": " + why + " (" + ToString(flavour) + " build):\n" + CappedOutput(r));
      failed.timed_out = r.timed_out;
      return failed;
    }
    compiler_output += r.output;
    const std::string forbidden = CheckSymbols(object);
    if (!forbidden.empty())
      return Failure("forbidden_symbol",
                     file + " defines or calls " + forbidden +
                         ", which belong to CUDA or to the kit. Rename your function; a "
                         "submission may not replace the runtime or the harness, nor go around "
                         "it.");
    objects.push_back(object);
  }

  BuildOutcome out;
  out.executable = work_dir + "/harness";
  Command link;
  link.argv = LinkCommand(objects, out.executable, backend);
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
  out.ok = true;
  out.compiler_output = std::move(compiler_output);
  return out;
}

std::string SubmissionBuilder::ResourceReportText(const std::string& src_dir, std::string& error) {
  if (manifest_.nvcc.empty()) {
    error =
        "nvcc is not installed here, so kernel resources (shared memory, registers) cannot be read";
    return "";
  }
  std::string text;
  for (const std::string& file : spec_.student_files) {
    Command cmd;
    // The modelled GPU's architecture on the CPU backend, the build's own on the GPU backend.
    cmd.argv = {manifest_.nvcc,       "-c",      "-std=c++17", "-O3",
                GpuArchFlag(),        "-Xptxas", "-v",         "-I" + manifest_.LabDir(spec_.id),
                src_dir + "/" + file, "-o",      "/dev/null"};
    cmd.timeout_seconds = spec_.limits.compile_seconds > 0 ? spec_.limits.compile_seconds : 120;
    const ProcessResult r = runner_.Run(cmd);
    if (!r.Succeeded()) {
      error = file + " does not compile with nvcc:\n" + CappedOutput(r);
      return "";
    }
    text += r.output;
  }
  return text;
}

}  // namespace labkit
