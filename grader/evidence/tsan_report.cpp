#include "tsan_report.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "text.h"
#include "untrusted_file.h"

namespace labkit {

namespace {

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string BaseName(const std::string& path) {
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

struct Frame {
  std::string function, file;
  int line = 0;
};

// "    #0 kernel(float const*, ...) /path/matmul.cu:95 (harness+0x41a580)"
bool ParseFrame(const std::string& text, Frame& frame) {
  static const std::regex pattern(R"(^\s+#\d+ (.*) (\S+):(\d+)(?::\d+)? \(\S+\)\s*$)");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) return false;
  frame = {m[1].str(), m[2].str(), std::stoi(m[3].str())};
  return true;
}

// The frame to show: the innermost in a student file, else the innermost.
RaceAccess Choose(const std::vector<Frame>& frames, const std::vector<std::string>& student_files,
                  RaceAccess access) {
  if (frames.empty()) return access;
  const Frame* chosen = &frames.front();
  for (const Frame& f : frames) {
    const bool theirs = std::any_of(student_files.begin(), student_files.end(),
                                    [&](const std::string& s) { return EndsWith(f.file, "/" + s); });
    if (theirs) {
      chosen = &f;
      break;
    }
  }
  access.function = chosen->function;
  access.file = chosen->file;
  access.line = chosen->line;
  return access;
}

std::string Lowercase(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// One report's lines, from "WARNING: ThreadSanitizer: data race" to its "SUMMARY:" line.
std::optional<DataRace> ParseReport(const std::vector<std::string>& lines,
                                    const std::vector<std::string>& student_files) {
  // "  Write of size 4 at 0x7f... by thread T2:" / "  Previous read of size 4 at ... by main
  // thread:"
  static const std::regex access_line(
      R"(^  (Previous )?((?:[Aa]tomic )?(?:[Rr]ead|[Ww]rite)) of size (\d+) at \S+ by (.+?)( \(mutexes.*\))?:\s*$)");
  static const std::regex thread_line(R"(^  Thread (T\d+) '(.*)' \()");
  std::map<std::string, std::string> names;  // "thread T2" -> its fiber name
  RaceAccess accesses[2];
  std::vector<Frame> frames[2];
  int seen = 0, current = -1;
  for (const std::string& line : lines) {
    std::smatch m;
    if (std::regex_match(line, m, access_line)) {
      current = m[1].matched ? 1 : 0;
      ++seen;
      accesses[current].operation = Lowercase(m[2].str());
      accesses[current].bytes = std::stoi(m[3].str());
      accesses[current].thread = m[4].str();
      continue;
    }
    if (std::regex_search(line, m, thread_line)) {
      names["thread " + m[1].str()] = m[2].str();
      current = -1;
      continue;
    }
    Frame frame;
    if (current >= 0 && ParseFrame(line, frame)) {
      frames[current].push_back(frame);
    } else if (line.find_first_not_of(' ') != std::string::npos && line.rfind("    #", 0) != 0) {
      current = -1;  // "Location is ...", "Mutex ...": the access's stack has ended
    }
  }
  if (seen < 2) return std::nullopt;
  DataRace race;
  race.current = Choose(frames[0], student_files, accesses[0]);
  race.previous = Choose(frames[1], student_files, accesses[1]);
  for (RaceAccess* a : {&race.current, &race.previous}) {
    const auto named = names.find(a->thread);
    if (named != names.end()) a->thread = named->second;
  }
  return race;
}

std::vector<std::string> ReadLines(const std::string& path) {
  std::vector<std::string> lines;
  // The student's own file: never a FIFO, a link or a flood.
  auto text = ReadUntrustedFile(path, kMaxSourceBytes);
  std::istringstream in(text ? *text : std::string());
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string Quote(const std::vector<std::string>& source, int line) {
  if (line < 1 || static_cast<std::size_t>(line) > source.size()) return "";
  std::string text = Trimmed(source[line - 1]);
  if (text.size() > 100) text = text.substr(0, 97) + "...";
  return text.empty() ? "" : "    " + text + "\n";
}

// Whether a __syncthreads call sits on the lines strictly between `a` and `b`.
bool BarrierBetween(const std::vector<std::string>& source, int a, int b) {
  for (int line = std::min(a, b) + 1; line < std::max(a, b); ++line)
    if (static_cast<std::size_t>(line) <= source.size() &&
        source[line - 1].find("__syncthreads") != std::string::npos)
      return true;
  return false;
}

std::string Where(const RaceAccess& a) {
  return "line " + std::to_string(a.line) + " of " + BaseName(a.file);
}

std::string DescribeOne(const DataRace& race, const std::string& src_dir) {
  const RaceAccess& w = race.current.operation.find("write") != std::string::npos ? race.current
                                                                                  : race.previous;
  const RaceAccess& r = &w == &race.current ? race.previous : race.current;
  std::ostringstream out;
  out << "  " << Where(race.current) << " (" << race.current.operation << ", "
      << race.current.thread << ")\n";
  const std::vector<std::string> source = ReadLines(src_dir + "/" + BaseName(race.current.file));
  out << Quote(source, race.current.line);
  out << "  raced with " << Where(race.previous) << " (" << race.previous.operation << ", "
      << race.previous.thread << ")\n";
  const std::vector<std::string> previous_source =
      BaseName(race.previous.file) == BaseName(race.current.file)
          ? source
          : ReadLines(src_dir + "/" + BaseName(race.previous.file));
  out << Quote(previous_source, race.previous.line);
  if (w.file != r.file || source.empty() || w.line == r.line) return out.str();
  if (!BarrierBetween(source, w.line, r.line)) {
    out << "  No __syncthreads() separates these lines: put one between them, so that every "
           "thread has finished one before any thread does the other.\n";
  } else if (r.line > w.line) {
    out << "  A barrier separates them inside one pass, so the race goes around the loop: the "
           "next pass's line "
        << w.line << " overwrites what a slower thread still uses at line " << r.line
        << ". Put a __syncthreads() after line " << r.line
        << ", at the end of the loop body.\n";
  }
  return out.str();
}

}  // namespace

std::vector<DataRace> ParseThreadSanitizerLog(const std::string& log,
                                              const std::vector<std::string>& student_files) {
  std::vector<DataRace> races;
  std::istringstream in(log);
  std::vector<std::string> report;
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.find("WARNING: ThreadSanitizer: data race") != std::string::npos) {
      inside = true;
      report.clear();
      continue;
    }
    if (!inside) continue;
    if (line.rfind("SUMMARY: ThreadSanitizer", 0) == 0) {
      inside = false;
      if (auto race = ParseReport(report, student_files)) races.push_back(*race);
      continue;
    }
    report.push_back(line);
  }
  return races;
}

std::string DescribeDataRaces(const std::vector<DataRace>& races, const std::string& src_dir) {
  constexpr std::size_t kShown = 3;
  std::vector<const DataRace*> distinct;
  std::set<std::pair<std::string, std::string>> seen;
  for (const DataRace& race : races) {
    auto key = std::minmax(Where(race.current), Where(race.previous));
    if (seen.insert(key).second) distinct.push_back(&race);
  }
  if (distinct.empty()) return "";
  std::ostringstream out;
  out << "ThreadSanitizer found " << distinct.size()
      << " data race(s) between threads of one block: the same memory written by one CUDA "
         "thread and read or written by another with no __syncthreads() in between.\n";
  for (std::size_t i = 0; i < distinct.size() && i < kShown; ++i) {
    out << DescribeOne(*distinct[i], src_dir);
  }
  if (distinct.size() > kShown) out << "  (and " << distinct.size() - kShown << " more)\n";
  return out.str();
}

}  // namespace labkit
