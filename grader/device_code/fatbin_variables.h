// What a fatbinary as nvcc writes it into an object holds (a 16-byte header: magic 0xBA55ED50,
// version, header size, then the size of the entries that follow).
//
// The variables its device code holds, read off the code itself: each ELF entry's symbol
// table, an object's section telling __constant__ (`.nv.constant<n>`) from __device__
// (`.nv.global*`). labgrade hands the kit's replay program the very fatbinary it reads here, so
// these are the names of the code that runs, not of a second compile (whose PTX the student's
// source can make differ: __TIME__, __has_include). An entry that is not a plain ELF (nvcc
// compresses PTX, and large ELFs) leaves the list incomplete.
#pragma once

#include <string>
#include <vector>

#include "fatbin_elf.h"

namespace labkit {

// Whether `bytes` are exactly one fatbinary. A section with more in it (bytes a `section`
// attribute of the student's put there) is not used: the replay would then run other device code
// than the linked program holds.
bool IsOneFatbin(const std::vector<char>& bytes);

struct FatbinVariables {
  std::vector<std::string> constant;  // in constant memory
  std::vector<std::string> global;    // in global memory
  bool complete = false;  // every ELF entry was read (else: treat an unknown one as __constant__)
};

FatbinVariables VariablesInFatbin(const std::vector<char>& fatbin);

}  // namespace labkit
