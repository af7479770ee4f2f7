// Turning what a checker reported (the CPU backend's diagnostics, compute-sanitizer's log, a
// process that died) into a message for the student: what happened, where, and the usual cause.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness_runner.h"
#include "lab_spec.h"
#include "memcheck_log.h"
#include "process.h"

namespace labkit {

// One CPU-backend diagnostic line (docs/DESIGN.md) as a sentence. `executable` is used to turn
// the faulting address into a source line (addr2line); pass "" to skip that. `shape`, the case's
// m x n x k when known, names the buffer of an out-of-bounds access (A, B or C).
std::string DescribeEmuDiagnostic(const nlohmann::json& diagnostic, const std::string& executable,
                                  ProcessRunner* runner, const Shape* shape = nullptr);

// The matrices of an m x n x k product that are `bytes` long, for a message: "C (29 x 29)",
// "A (29 x 29) or B (29 x 29)"; a write names C alone when C fits, a read A or B when one fits
// (A and B are inputs, C is only written). "" when none is that long.
std::string MatricesOfSize(long long bytes, const Shape& shape, bool write);

// Where an out-of-bounds access fell, `offset` bytes from the start of a `bytes`-long buffer
// that a message calls `buffer` ("B (13 x 64)"; "" when unknown): "element 835 of B (13 x 64),
// whose elements are 0 to 831 (4 past the end)".
std::string OutOfBoundsPosition(long long offset, long long bytes, const std::string& buffer);

// The errors compute-sanitizer found, or "" when it found none. The first line names the cause
// and, for memcheck's first out-of-bounds access, the matrix among `buffers` it fell next to
// (memcheck_log.h); the tool's own lines (kernel, source line, thread, block, address) follow,
// then the usual cause.
std::string SummariseSanitizerLog(const std::string& log, const std::string& tool,
                                  const std::vector<NamedBuffer>& buffers = {});

// What compute-sanitizer `tool` found, for a run whose exit status says it found something: the
// log's summary, or, where the log says nothing (the program can rewrite it), what its status
// means and the usual cause. Never "". `buffers` as for SummariseSanitizerLog.
std::string SanitizerFindingText(const std::string& log, const std::string& tool,
                                 const std::vector<NamedBuffer>& buffers = {});

// The device-memory budget's refusal, for the note after a failure: "labkit: cudaMalloc of ...
// bytes refused: this program already holds ... MiB of device memory and may hold ... MiB".
std::string MemoryRefusalText(const MemoryRefusal& refusal);

// A harness that died: why, in words ("it crashed with a segmentation fault (signal 11)").
std::string DescribeDeath(const ProcessResult& process);

}  // namespace labkit
