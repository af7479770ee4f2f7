// GPU builds: the PTX that nvcc put in the very fatbinary the kit's replay program runs, in place
// of a second compile (`nvcc -ptx`), whose output the student's source can make differ from the
// code that runs (__TIME__, __has_include, a macro of the other compile). The kit's own compile
// asks nvcc for uncompressed entries (submission_build.cpp), which nvcc 13 otherwise compresses.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace labkit {

// The text of every PTX entry in `fatbin`, one after another. nullopt where there is none, or
// one is not plain text (a compressed entry).
std::optional<std::string> PtxInFatbin(const std::vector<char>& fatbin);

// The same for every fatbinary a GPU build cut out of its objects (kit_replay_program.h, the list
// beside `executable`); nullopt where the list or any of them cannot be read.
std::optional<std::string> PtxOfBuild(const std::string& executable);

}  // namespace labkit
