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
  // to the includer. GCC starts with the main file, <built-in> and <command-line> (whose -include
  // headers enter and return), then the main file from its line 1. From there, a marker with
  // neither flag is a #line in the file being read: lines are given to the file they are
  // physically in, whatever name a #line gives it (<built-in> included), so a #line cannot move a
  // line of the student's into a file that is not compared.
  static const std::regex kMarker(R"re(^# (\d+) "((?:[^"\\]|\\.)*)"((?: \d)*)\s*$)re");
  KeptLines kept;
  std::vector<std::string> including;  // the files being read below the main file, outermost first
  std::string main_file, current;
  bool in_main = false;  // past the compiler's preamble
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
      if (main_file.empty()) {
        main_file = name;
      } else if (including.empty() && !in_main && name == main_file) {
        in_main = true;
      }
      if (!including.empty())
        current = including.back();
      else
        current = in_main ? main_file : name;
      continue;
    }
    if (!current.empty() && HasText(text) && line > 0 && line <= INT32_MAX)
      kept.push_back({current, static_cast<int>(line)});
    ++line;
  }
  return kept;
}

std::optional<LineDifference> FirstDifference(
    const KeptLines& cpu_backend, const KeptLines& gpu,
    const std::function<bool(const std::string&)>& is_students) {
  const auto students = [&](const KeptLines& all) {
    KeptLines own;
    for (const KeptLine& l : all)
      if (is_students(l.file)) own.push_back(l);
    return own;
  };
  const KeptLines on_cpu = students(cpu_backend), on_gpu = students(gpu);
  const std::set<KeptLine> cpu_set(on_cpu.begin(), on_cpu.end()),
      gpu_set(on_gpu.begin(), on_gpu.end());
  for (std::size_t i = 0; i < std::max(on_cpu.size(), on_gpu.size()); ++i) {
    const KeptLine* c = i < on_cpu.size() ? &on_cpu[i] : nullptr;
    const KeptLine* g = i < on_gpu.size() ? &on_gpu[i] : nullptr;
    if (c != nullptr && g != nullptr && *c == *g) continue;
    if (c != nullptr && !gpu_set.count(*c)) return LineDifference{c->file, c->line, true, false};
    if (g != nullptr && !cpu_set.count(*g)) return LineDifference{g->file, g->line, false, false};
    const KeptLine& both = c != nullptr ? *c : *g;
    return LineDifference{both.file, both.line, c != nullptr, true};
  }
  return std::nullopt;
}

int FirstLineMarkerLike(const std::string& text) {
  // A marker names a file: `#` (or its digraph), a number and a quoted name, after blanks, as a
  // directive (GCC's own form of #line, which may carry flags) or as text a preprocessing copies.
  static const std::regex kLike(R"re(^[ \t\f\v]*(#|%:)[ \t\f\v]*[0-9]+[ \t\f\v]+")re");
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number)
    if (std::regex_search(line, kLike)) return number;
  return 0;
}

std::string DifferenceMessage(const LineDifference& d, const std::string& line_text) {
  const std::string where =
      fs::path(d.file).filename().string() + " line " + std::to_string(d.line);
  const std::string how =
      d.order ? " comes at another point among your lines on the CPU backend than on a GPU (a "
                "header included in another order, or more than once, on one of them)"
      : d.on_cpu_backend ? " is compiled on the CPU backend but not on a GPU"
                         : " is compiled on a GPU but not on the CPU backend";
  std::string message =
      where + how +
      ": a preprocessor condition (or a header) that reads differently on the two, such as "
      "#ifdef LABKIT_EMU or __LABKIT_EMU__ (defined by the CPU backend alone), or a header only "
      "one of them has. The grade must be for the code a GPU runs, so a file the two compile "
      "differently is not graded: write it the same for both.";
  if (!line_text.empty()) message += "\n  " + std::to_string(d.line) + " | " + line_text;
  return message;
}

namespace {

// The refusal of a line that looks like a line marker (FirstLineMarkerLike).
std::string LineMarkerMessage(const std::string& file, int line, const std::string& line_text) {
  return fs::path(file).filename().string() + " line " + std::to_string(line) +
         " is, or looks like, a line marker of the preprocessor (`# 12 \"file\"`), as a "
         "directive, in a comment or in a string: the grader reads those markers to tell which "
         "lines the CPU backend and a GPU compile, so a file with one is not graded. Remove it "
         "(a `#line` directive is fine).\n  " +
         std::to_string(line) + " | " + line_text;
}

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
  // The submission's files, by where they are (links and /proc/self/root/... resolved): the
  // sandbox shows the student's code no other file of its own.
  std::error_code ec;
  std::string folder = fs::weakly_canonical(check.submission_dir, ec).string();
  if (folder.empty() || folder.back() != '/') folder += '/';
  // Resolved once a file: a preprocessing names a header on every line it keeps (tens of thousands
  // with the CUDA headers), and resolving a path is a system call a folder.
  std::map<std::string, bool> resolved;
  const auto is_students = [&](const std::string& file) {
    if (file.empty() || file[0] == '<') return false;  // <built-in>, <command-line>
    const auto known = resolved.find(file);
    if (known != resolved.end()) return known->second;
    std::error_code resolve;
    const std::string where = fs::weakly_canonical(file, resolve).string();
    return resolved[file] = where.compare(0, folder.size(), folder) == 0;
  };
  // A marker written in a file of the student's would pass for the compiler's own.
  std::set<std::string> files = {source};
  for (const KeptLines* all : {&*cpu, &*gpu})
    for (const KeptLine& l : *all)
      if (is_students(l.file)) files.insert(l.file);
  for (const std::string& file : files) {
    const Result<std::string> text = ReadUntrustedFile(file, kMaxPreprocessedBytes);
    if (!text) return MakeError("the submission's " + file + " cannot be read: " + text.error());
    if (const int line = FirstLineMarkerLike(*text))
      return LineMarkerMessage(file, line, LineOf(*text, line));
  }
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
