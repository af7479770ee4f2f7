#include "backend_conditionals.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

#include "untrusted_file.h"

namespace labkit {
namespace {
namespace fs = std::filesystem;

// A preprocessing with every CUDA header in it is a few MiB; a source that includes far more is
// refused by the limit on what a compile may read, not here.
constexpr std::size_t kMaxPreprocessedBytes = std::size_t{256} << 20;

bool HasText(const std::string& line) {
  return line.find_first_not_of(" \t\r\f\v") != std::string::npos;
}

// The line `number` (from 1) of `text`; "" past its end.
std::string LineOf(const std::string& text, int number) {
  std::istringstream in(text);
  std::string line;
  for (int i = 1; std::getline(in, line); ++i)
    if (i == number) return line;
  return "";
}

}  // namespace

KeptLines KeptLinesOf(const std::string& preprocessed) {
  // `# 12 "file" 1 3`: the next line is line 12 of file; flag 1 enters an included file, 2 returns
  // to the includer. A marker with neither is a #line in the file being read, or (at the outermost
  // level) the main file, <built-in> or <command-line>. Lines are given to the file they are
  // physically in, whatever name a #line gives it: a #line cannot move a line of the student's
  // into a header that is not compared.
  static const std::regex kMarker(R"re(^# (\d+) "((?:[^"\\]|\\.)*)"((?: \d)*)\s*$)re");
  KeptLines kept;
  std::vector<std::string> including;  // the files being read, outermost first
  std::string main_file;
  std::string current;
  long long line = 0;
  std::istringstream in(preprocessed);
  std::string text;
  std::smatch m;
  while (std::getline(in, text)) {
    if (!text.empty() && text[0] == '#' && std::regex_match(text, m, kMarker)) {
      line = std::stoll(m[1].str());
      const std::string name = m[2].str(), flags = m[3].str();
      if (flags.find(" 1") != std::string::npos) {
        including.push_back(name);
      } else if (flags.find(" 2") != std::string::npos && !including.empty()) {
        including.pop_back();
      }
      if (main_file.empty()) main_file = name;
      if (!including.empty())
        current = including.back();
      else
        current = name == "<built-in>" || name == "<command-line>" ? name : main_file;
      continue;
    }
    if (!current.empty() && HasText(text) && line > 0 && line <= INT32_MAX)
      kept[current].insert(static_cast<int>(line));
    ++line;
  }
  return kept;
}

std::optional<LineDifference> FirstDifference(
    const KeptLines& cpu_backend, const KeptLines& gpu,
    const std::function<bool(const std::string&)>& is_students) {
  std::set<std::string> files;
  for (const auto& [file, lines] : cpu_backend) files.insert(file);
  for (const auto& [file, lines] : gpu) files.insert(file);
  static const std::set<int> kNone;
  for (const std::string& file : files) {
    if (!is_students(file)) continue;
    const auto c = cpu_backend.find(file), g = gpu.find(file);
    const std::set<int>& on_cpu = c == cpu_backend.end() ? kNone : c->second;
    const std::set<int>& on_gpu = g == gpu.end() ? kNone : g->second;
    if (on_cpu == on_gpu) continue;
    std::set<int> differ;
    for (int l : on_cpu)
      if (!on_gpu.count(l)) differ.insert(l);
    for (int l : on_gpu)
      if (!on_cpu.count(l)) differ.insert(l);
    const int first = *differ.begin();
    return LineDifference{file, first, on_cpu.count(first) > 0};
  }
  return std::nullopt;
}

std::string DifferenceMessage(const LineDifference& d, const std::string& line_text) {
  const std::string where =
      fs::path(d.file).filename().string() + " line " + std::to_string(d.line);
  std::string message =
      where + " is compiled " +
      (d.on_cpu_backend ? "on the CPU backend but not on a GPU"
                        : "on a GPU but not on the CPU "
                          "backend") +
      ": a preprocessor condition (or a header) that reads differently on the two, such as "
      "#ifdef LABKIT_EMU or __LABKIT_EMU__ (defined by the CPU backend alone), or a header only "
      "one "
      "of them has. The grade must be for the code a GPU runs, so a file the two compile "
      "differently is not graded: write it the same for both.";
  if (!line_text.empty()) message += "\n  " + std::to_string(d.line) + " | " + line_text;
  return message;
}

namespace {

// The first differing line of the student's in `source`'s two preprocessings, as a refusal; ""
// where there is none; an error where a preprocessing fails or cannot be read.
Result<std::string> Compare(ProcessRunner& runner, const ConditionalsCheck& check,
                            const std::string& source, const std::string& out_prefix) {
  // `directives_only`: how the command is told to resolve conditions without expanding macros.
  const auto preprocess = [&](std::vector<std::string> argv,
                              const std::vector<std::string>& directives_only,
                              const std::string& out) -> Result<KeptLines> {
    argv.insert(argv.end(), check.options.begin(), check.options.end());
    argv.push_back("-E");
    argv.insert(argv.end(), directives_only.begin(), directives_only.end());
    argv.insert(argv.end(), {source, "-o", out});
    Command c;
    c.argv = std::move(argv);
    c.timeout_seconds = check.timeout_seconds;
    c.output_limit = 16 * 1024;
    const ProcessResult r = runner.Run(c);
    if (!r.Succeeded())
      return MakeError(c.argv.front() + " -E -fdirectives-only failed: " + r.output);
    const Result<std::string> text = ReadUntrustedFile(out, kMaxPreprocessedBytes);
    if (!text) return MakeError("its output cannot be read: " + text.error());
    return KeptLinesOf(*text);
  };
  const Result<KeptLines> cpu =
      preprocess(check.cpu_backend_prefix, {"-fdirectives-only"}, out_prefix + ".cpu.ii");
  if (!cpu) return MakeError(cpu.error());
  // nvcc hands the option to the host compiler that preprocesses for it.
  const Result<KeptLines> gpu =
      preprocess(check.gpu_prefix, {"-Xcompiler", "-fdirectives-only"}, out_prefix + ".gpu.ii");
  if (!gpu) return MakeError(gpu.error());
  std::string folder = check.submission_dir;
  if (folder.empty() || folder.back() != '/') folder += '/';
  const auto is_students = [&](const std::string& file) {
    if (file.empty() || file[0] == '<') return false;  // <built-in>, <command-line>
    const std::string normal = fs::absolute(file).lexically_normal().string();
    return normal.compare(0, folder.size(), folder) == 0;
  };
  const std::optional<LineDifference> d = FirstDifference(*cpu, *gpu, is_students);
  if (!d) return std::string();
  const Result<std::string> text = ReadUntrustedFile(d->file, kMaxPreprocessedBytes);
  return DifferenceMessage(*d, text ? LineOf(*text, d->line) : "");
}

}  // namespace

ConditionalsCheck ConditionalsCheckFor(const Manifest& manifest, const std::string& lab,
                                       const std::string& arch_flag, double timeout_seconds,
                                       const std::string& submission_dir) {
  ConditionalsCheck check;
  check.cpu_backend_prefix = {manifest.emu_cxx, manifest.cxx};
  check.gpu_prefix = {manifest.nvcc, arch_flag};
  check.options = {"-std=c++17", "-I" + manifest.LabDir(lab)};
  check.submission_dir = fs::absolute(submission_dir).lexically_normal().string();
  check.timeout_seconds = timeout_seconds;
  return check;
}

ConditionalsVerdict CheckBackendConditionals(ProcessRunner& runner, const ConditionalsCheck& check,
                                             const std::string& source,
                                             const std::string& out_prefix) {
  const Result<std::string> compared = Compare(runner, check, source, out_prefix);
  if (compared) return {*compared, ""};
  const std::string probe = out_prefix + ".probe.cu";
  if (!(std::ofstream(probe, std::ios::trunc)
        << "// Written by labgrade: reads the same on every backend.\n"
           "__global__ void labkit_probe(float* out) { out[threadIdx.x] = 1.0f; }\n")
           .flush())
    return {"", "the grader could not write " + probe};
  ConditionalsCheck probe_check = check;  // the probe's lines are compared as a student's are
  probe_check.submission_dir = fs::absolute(probe).parent_path().string();
  const Result<std::string> probed = Compare(runner, probe_check, probe, out_prefix + ".probe");
  if (!probed || !probed->empty())
    return {"", "the grader's own file is not preprocessed alike for both backends: " +
                    (probed ? *probed : probed.error())};
  return {"the grader cannot tell which lines of your file the CPU backend and a GPU compile (" +
              compared.error() + ")",
          ""};
}

}  // namespace labkit
