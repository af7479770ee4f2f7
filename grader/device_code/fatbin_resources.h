// GPU builds: each kernel's resources (registers, barriers, fixed-size __shared__ bytes, stack
// frame) read off the cubins of the very fatbinary the kit's replay program runs, in place of
// ptxas's report on the PTX of a second compile, which the student's source can make differ
// (__TIME__, __has_include, a macro of the other compile): what the technique check reads is then
// the code that runs.
//
// Where nvcc 13 (sm_75 to sm_120) keeps them: registers and the stack frame in the module's
// `.nv.info` (attributes 0x2f and 0x11, each with the kernel's symbol), the barriers in the
// kernel's own `.nv.info.<kernel>` (attribute 0x4c; none: 0), the __shared__ arrays in the size of
// `.nv.shared.<kernel>`, which from sm_90 on also holds the 1 KiB each block reserves where the
// module has a `.nv.shared.reserved.0` section. fatbin_resources_test.cpp holds them against
// ptxas's own report for kernels of every kind the labs see.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "resource_report.h"

namespace labkit {

// The kernels of every cubin in `fatbin`, as ParsePtxasReport gives them. nullopt where there is
// no cubin, or one cannot be read (a compressed entry) or holds what this does not know how to
// read: the report is then missing, never taken from a second compile (judge/grade.cpp).
std::optional<ResourceReport> ResourcesInFatbin(const std::vector<char>& fatbin);

// The same for every fatbinary a GPU build cut out of its objects (kit_replay_program.h, the list
// beside `executable`); nullopt where the list or any of them cannot be read.
std::optional<ResourceReport> ResourcesOfBuild(const std::string& executable);

}  // namespace labkit
