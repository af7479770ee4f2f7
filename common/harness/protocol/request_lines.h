// The request's two files in a harness run's folder (docs/DESIGN.md, "Harness protocol"):
// request.json holds what the whole run needs (the exercise, the run's settings, the timing, the
// student's image); cases.jsonl holds the cases, one JSON object a line, in the order they run.
//
// The harness runs the student's code in its own process, so whatever it holds in memory before a
// case runs, that case's code can read (r18_max_width_read_off_the_harness_request: a drawn
// device's limit found in the text of a request read whole). CaseLines reads cases.jsonl one line
// at a time, without a buffer beyond the line it returns: a case's parameters enter the process
// only when that case is next, and the later ones stay in the kernel's page cache. The file is
// open only while a line is read, never while the student's code runs: an open descriptor is one
// the student's code could read through with allowed calls (a stdio stream pointed at it:
// r21_max_width_read_ahead_through_stdin), and it cannot open a file itself (the symbol and
// instruction checks refuse every way).
#pragma once

#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace labkit {

inline constexpr char kRequestFileName[] = "request.json";
inline constexpr char kCasesFileName[] = "cases.jsonl";

// `path` made absolute against the working folder now: the harness's files are named relative to
// its run folder, and the process's working folder could change while it runs.
std::string AbsolutePath(const std::string& path);

class CaseLines {
 public:
  // Reads `path` (a cases.jsonl); throws std::runtime_error when it cannot be opened.
  explicit CaseLines(const std::string& path);

  // The next case, or nullopt after the last one. Throws std::runtime_error on a file that
  // cannot be opened or read, or a line that is not a JSON object or is longer than the kit ever
  // writes (1 MiB).
  std::optional<nlohmann::json> Next();

 private:
  std::string path_;  // absolute: the working folder is the process's, which could change
  off_t offset_ = 0;  // where the next line starts
};

}  // namespace labkit
