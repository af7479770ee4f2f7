// ThreadSanitizer's data-race reports (the CPU backend's --tsan build, emu/runtime's
// race_annotations.h) read into plain data and said for a student: which two lines of their file
// touched the same memory from two CUDA threads of a block with no barrier between them.
#pragma once

#include <string>
#include <vector>

namespace labkit {

struct RaceAccess {
  std::string operation;  // "write" | "read" | "atomic write" ...
  int bytes = 0;
  std::string thread;     // "CUDA thread (3,0,0) of block (0,0,0)", or TSan's own "T5"
  std::string function;   // of the frame chosen below
  std::string file;       // full path as compiled
  int line = 0;
};

struct DataRace {
  RaceAccess current;   // the access that found the race
  RaceAccess previous;  // the earlier one it raced with
};

// Every data race in `log` (one or more TSan reports, other lines ignored). For each access the
// frame shown is the innermost one in a file whose name ends with one of `student_files`, or the
// innermost frame when none does.
std::vector<DataRace> ParseThreadSanitizerLog(const std::string& log,
                                              const std::vector<std::string>& student_files);

// The races as a message ("" when there are none): each distinct pair of lines once, quoting the
// lines from `src_dir`, and the usual cause by which line comes first.
std::string DescribeDataRaces(const std::vector<DataRace>& races, const std::string& src_dir);

}  // namespace labkit
