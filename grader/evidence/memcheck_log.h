// compute-sanitizer memcheck's report of an invalid memory access, read into plain data, and the
// matrix of the harness's that its address falls next to. The tool knows addresses and the sizes
// of allocations, not what they hold; the harness says where it put A, B and C (CaseRun::buffers).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace labkit {

struct MemcheckAccess {
  std::string operation;       // "read", "write", "atomic"
  std::string space;           // "__global__", "__shared__", "__local__" ... ("" when not said)
  int bytes = 0;               // the size of the access
  std::string kernel;          // as the tool prints it, "" when not found
  std::string source;          // "file.cu:88", "" when the program has no line information
  std::string thread, block;   // "(3,0,0)"
  bool out_of_bounds = false;  // "... is out of bounds" (not misaligned)
  std::optional<std::uint64_t> address;
  // The allocation the tool names as nearest ("and is 4 bytes after the nearest allocation at 0x..
  // of size 3328 bytes"), when it names one with its size.
  struct Allocation {
    std::uint64_t base = 0;
    long long bytes = 0;
  };
  std::optional<Allocation> nearest;
};

// The first invalid access in a memcheck log; nullopt when it reports none (a clean log, or only
// API errors and hardware exceptions).
std::optional<MemcheckAccess> FirstInvalidAccess(const std::string& log);

// A matrix of the harness's as a message names it.
struct NamedBuffer {
  std::string matrix;     // "A", "B" or "C"
  std::string name;       // "B (13 x 64)"
  std::string case_name;  // "case 128x13x64 (m x n x k)", "" when not known
  std::uint64_t address = 0;
  long long bytes = 0;
};

// Where an access lies relative to a buffer: `offset` bytes from its start (negative: before it).
// `buffer` is null for an allocation that is none of the harness's (one the student's code made).
struct BufferPosition {
  const NamedBuffer* buffer = nullptr;
  long long offset = 0;
  long long bytes = 0;  // the buffer's size
};

// The buffer an out-of-bounds global access belongs to. Where the tool names the nearest
// allocation, that allocation (the first of `buffers` with its address and size, else none of
// them); where it does not, the one of `buffers` nearest to the address. nullopt without an
// address or, in the second case, without buffers.
std::optional<BufferPosition> LocateAccess(const MemcheckAccess& access,
                                           const std::vector<NamedBuffer>& buffers);

}  // namespace labkit
