// The variables a fatbinary's device code holds, read off the code itself: each ELF entry's symbol
// table, an object's section telling __constant__ (`.nv.constant<n>`) from __device__
// (`.nv.global*`). labgrade hands the kit's replay program the very fatbinary it reads here, so
// these are the names of the code that runs, not of a second compile (whose PTX the student's
// source can make differ: __TIME__, __has_include). An entry that is not a plain ELF (nvcc
// compresses PTX, and large ELFs) leaves the list incomplete.
#pragma once

#include <string>
#include <vector>

namespace labkit {

struct FatbinVariables {
  std::vector<std::string> constant;  // in constant memory
  std::vector<std::string> global;    // in global memory
  bool complete = false;  // every ELF entry was read (else: treat an unknown one as __constant__)
};

FatbinVariables VariablesInFatbin(const std::vector<char>& fatbin);

}  // namespace labkit
