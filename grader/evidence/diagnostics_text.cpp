#include "diagnostics_text.h"

#include <algorithm>

#include <cstdlib>
#include <memory>
#include <regex>
#include <sstream>

#include "report_lines.h"
#include "resource_report.h"

namespace labkit {
using nlohmann::json;

namespace {

std::string Triple(const json& j) {
  if (!j.is_array() || j.size() != 3) return "?";
  std::ostringstream s;
  s << "(" << j[0] << "," << j[1] << "," << j[2] << ")";
  return s.str();
}

// A text field of a diagnostic (written by the process the student's code ran in), or `fallback`.
std::string Text(const json& d, const char* key, const char* fallback = "") {
  const std::string value = TextField(d, key);
  return value.empty() ? fallback : value;
}

std::string SourceLine(const std::string& executable, const std::string& pc,
                       ProcessRunner* runner) {
  if (runner == nullptr || executable.empty() || pc.empty()) return "";
  Command cmd;
  cmd.argv = {"addr2line", "-e", executable, "-C", "-f", "-i", pc};
  cmd.timeout_seconds = 20;
  const ProcessResult r = runner->Run(cmd);
  if (!r.Succeeded()) return "";
  // addr2line prints "function\nfile:line" pairs, innermost first.
  std::istringstream lines(r.output);
  std::string function, location;
  if (!std::getline(lines, function) || !std::getline(lines, location)) return "";
  if (location.rfind("??", 0) == 0) return "";
  const auto disc = location.find(" (discriminator");
  if (disc != std::string::npos) location.erase(disc);
  return location;
}

// The usual cause of an access past the bounds of `matrix` ("A", "B", "C"; "" when not known).
std::string UnguardedAccessCause(bool write, const std::string& matrix) {
  if (write && (matrix == "A" || matrix == "B"))
    return "a store through the wrong pointer: A and B are inputs, only read; check the order "
           "of the kernel's arguments.";
  if (write)
    return "a store into C without a bounds check; guard it with if (row < m && col < k), and "
           "let every thread still reach the barriers.";
  if (matrix == "A")
    return "the load of A without a bounds check, e.g. a tile load in the last partial tile; "
           "guard it with row < m && the tile's column < n (store 0 in the tile instead).";
  if (matrix == "B")
    return "the load of B without a bounds check, e.g. a tile load in the last partial tile; "
           "guard it with the tile's row < n && col < k (store 0 in the tile instead).";
  if (matrix == "C")
    return "a read of C (C += ... or C read back) without the bounds check the store needs.";
  return "a load of A or B without a bounds check, e.g. a tile load in the last partial tile; "
         "guard the loads (store 0 instead), not only the store into C.";
}

// "A" of "A (29 x 29)"; "" when the text names no single matrix.
std::string MatrixLetter(const std::string& name) {
  if (name.size() < 2 || name[1] != ' ' || name.find(" or ") != std::string::npos) return "";
  return name.substr(0, 1);
}

}  // namespace

std::string OutOfBoundsPosition(long long offset, long long bytes, const std::string& buffer) {
  const std::string what =
      buffer.empty() ? "a " + std::to_string(bytes) + "-byte device buffer" : buffer;
  const long long float_bytes = 4;
  if (offset % float_bytes != 0 || bytes % float_bytes != 0) {
    const std::string side = offset < 0 ? std::to_string(-offset) + " before the start"
                                        : std::to_string(offset - bytes + 1) + " past the end";
    return "byte " + std::to_string(offset) + " of " + what + ", whose bytes are 0 to " +
           std::to_string(bytes - 1) + " (" + side + ")";
  }
  const long long element = offset / float_bytes, last = bytes / float_bytes - 1;
  const std::string side = element < 0 ? std::to_string(-element) + " before the start"
                                       : std::to_string(element - last) + " past the end";
  return "element " + std::to_string(element) + " of " + what + ", whose elements are 0 to " +
         std::to_string(last) + " (" + side + ")";
}

std::string MatricesOfSize(long long bytes, const Shape& shape, bool write) {
  struct Matrix {
    const char* name;
    int64_t rows, cols;
  };
  const Matrix matrices[] = {
      {"A", shape.m, shape.n}, {"B", shape.n, shape.k}, {"C", shape.m, shape.k}};
  auto text = [](const Matrix& x) {
    return std::string(x.name) + " (" + std::to_string(x.rows) + " x " + std::to_string(x.cols) +
           ")";
  };
  const long long float_bytes = 4;
  if (write && matrices[2].rows * matrices[2].cols * float_bytes == bytes) return text(matrices[2]);
  std::string names;
  for (const Matrix& x : matrices)
    if (x.rows * x.cols * float_bytes == bytes) names += (names.empty() ? "" : " or ") + text(x);
  // A read is a load of an input, where one is that long: C is only written.
  if (!write && !names.empty() && names[0] != 'C') names = names.substr(0, names.find(" or C ("));
  return names;
}

std::string DescribeEmuDiagnostic(const json& d, const std::string& executable,
                                  ProcessRunner* runner, const Shape* shape) {
  const std::string kind = Text(d, "kind");
  const std::string kernel = d.contains("kernel") ? DemangleSymbol(Text(d, "kernel")) : "";
  const std::string where = (kernel.empty() ? "" : " in " + kernel) +
                            (d.contains("thread") ? ", thread " + Triple(d["thread"]) : "") +
                            (d.contains("block") ? " of block " + Triple(d["block"]) : "");
  const std::string line = SourceLine(executable, Text(d, "pc"), runner);
  const std::string at = line.empty() ? "" : " at " + line;

  if (kind == "out_of_bounds") {
    const long long size = IntegerField(d, "buffer_bytes", -1);
    const long long offset = IntegerField(d, "offset", -1);
    const std::string access = Text(d, "access", "access");
    const bool write = access == "write";
    std::string what = "an out-of-bounds " + access + where + at;
    // The block's dynamic shared memory (the emulator says so): no matrix's bounds check is the
    // cause, the launch's size for it is.
    if (Text(d, "buffer") == "dynamic_shared" && size >= 0)
      return what + ": " +
             OutOfBoundsPosition(
                 offset, size,
                 "the block's " + std::to_string(size) + " bytes of dynamic shared memory") +
             ". Usual cause: the launch asked for less dynamic shared memory (its third <<<>>> "
             "argument, in bytes) than the kernel indexes: size it for every tile the kernel "
             "keeps there (e.g. 2 * side * side * sizeof(float) for two side x side tiles).";
    std::string matrix;
    if (size >= 0 && offset >= 0) {
      matrix = shape != nullptr ? MatricesOfSize(size, *shape, write) : "";
      what += ": " + OutOfBoundsPosition(offset, size, matrix);
    }
    // The advice follows the access and the matrix: a write past the end is the store into C,
    // a read one of the loads of A or B.
    return what + ". Usual cause: " + UnguardedAccessCause(write, MatrixLetter(matrix));
  }
  if (kind == "invalid_address") {
    return "a " + Text(d, "access", "memory access") +
           " of an address that is not in "
           "any device buffer" +
           where + at +
           ": far outside A, B and C (or before their start). Usual cause: an index computed "
           "wrongly (row and column swapped, a missing bounds check, a negative index).";
  }
  if (kind == "divergent_barrier") {
    return "__syncthreads() reached by only some threads of a block" + where + at + ": " +
           Text(d, "detail") +
           ". Every thread of a block must reach the same barrier: do not return early or put a "
           "barrier inside an if that depends on the thread index; skip only the store instead.";
  }
  if (kind == "host_pointer") {
    return "a host pointer was passed to a kernel" + where + " (argument " +
           std::to_string(IntegerField(d, "argument", -1)) +
           "). Kernels can only read device memory: pass the pointers the grader gave you, or "
           "memory from cudaMalloc.";
  }
  if (kind == "bad_copy") {
    return Text(d, "call", "a copy") + ": " + Text(d, "detail") +
           ". Check the order of the destination and source and the cudaMemcpyKind.";
  }
  if (kind == "unsupported_copy") return Text(d, "call", "a copy") + ": " + Text(d, "detail") + ".";
  if (kind == "guard_overwritten") {
    return "memory just outside a device buffer was overwritten" + where + ": " +
           Text(d, "detail") + ". Usual cause: a store into C without a bounds check.";
  }
  if (kind == "host_call_in_kernel") {
    const std::string function = DemangleSymbol(Text(d, "function", "a library function"));
    return "a call of " + function + where + at + ", which only host code may make: a kernel "
           "can call __device__ functions (maths, printf, malloc, memcpy and memset among them), "
           "and nvcc refuses this one (\"calling a __host__ function from a __global__ function "
           "is not allowed\"). The CPU backend compiles kernels as host code, so it stops the "
           "call when it runs. Do the work in the kernel itself.";
  }
  if (kind == "emulator_memory") {
    return "a " + Text(d, "access", "memory access") + " of the CPU backend's own memory" + where +
           at + " (address " + Text(d, "address", "?") +
           ", in no device buffer, shared array, variable of yours or the thread's own stack): "
           "where it keeps its count of your kernels' accesses. No GPU kernel can reach host "
           "memory (on a GPU this is an illegal address), so the CPU backend stops the run. Read "
           "and write only the buffers, variables and shared memory your kernel is given.";
  }
  if (kind == "shared_race") {
    // Both accesses, each with its thread and line: the barrier belongs between them.
    const std::string other_line = SourceLine(executable, Text(d, "other_pc"), runner);
    const std::string memory =
        Text(d, "memory") == "dynamic"
            ? "the block's dynamic shared memory"
            : "a " + std::to_string(IntegerField(d, "bytes", 0)) + "-byte __shared__ array";
    const std::string other = d.contains("other_thread") ? Triple(d["other_thread"]) : "?";
    return "a data race on shared memory" + (kernel.empty() ? "" : " in " + kernel) + ": thread " +
           other + " " + (Text(d, "other_access") == "write" ? "wrote" : "read") + " byte " +
           std::to_string(IntegerField(d, "offset", -1)) + " of " + memory +
           (other_line.empty() ? "" : " at " + other_line) + ", and thread " +
           (d.contains("thread") ? Triple(d["thread"]) : "?") + " of the same block" +
           (d.contains("block") ? " " + Triple(d["block"]) : "") + " then " +
           (Text(d, "access") != "write"         ? "read it"
            : Text(d, "other_access") == "write" ? "wrote another value there"
                                                 : "wrote it") +
           at +
           (IntegerField(d, "same_warp", 0) != 0
                ? ", with no __syncwarp() or __syncthreads() between them (lanes of one warp too "
                  "run in no fixed order since Volta, and a shuffle orders no memory). On a GPU "
                  "the threads run in no fixed order, "
                : ", with no __syncthreads() between them. On a GPU the threads run in no fixed "
                  "order, ") +
           "so the second may come first. Usual cause: a missing __syncthreads() between the "
           "loop that reads a tile and the loads that overwrite it for the next step (or "
           "between those loads and the reads).";
  }
  if (kind == "shared_record_full") {
    return "more __shared__ memory in one block of " + (kernel.empty() ? "your kernel" : kernel) +
           " than a GPU's block can hold (array number " +
           std::to_string(IntegerField(d, "arrays", 0) + 1) + ", of " +
           std::to_string(IntegerField(d, "bytes", 0)) +
           " bytes): the CPU backend cannot check such a block for races. Declare fewer, larger "
           "__shared__ arrays (a GPU block has at most 227 KiB of shared memory).";
  }
  if (kind == "counting_incomplete") {
    return "a counted launch of " + DemangleSymbol(Text(d, "kernel", "your kernel")) + " ran " +
           std::to_string(IntegerField(d, "blocks", 0) - IntegerField(d, "counted_blocks", 0)) +
           " of its " + std::to_string(IntegerField(d, "blocks", 0)) +
           " blocks uncounted: kernel code changed the CPU backend's record of which blocks it "
           "counts, memory no GPU kernel can reach.";
  }
  if (kind == "stack_overflow") {
    return "a GPU thread ran out of stack" + where + at +
           ": very large local arrays or deep recursion in a kernel.";
  }
  return "the CPU backend reported: " + d.dump();
}

namespace {

// The first line of a memcheck report whose first error is an invalid access: what, where, and
// for a global access the matrix it fell next to; "" when the log holds no such access.
std::string FirstAccessLine(const std::string& log, const std::vector<NamedBuffer>& buffers,
                            std::string& matrix) {
  const std::optional<MemcheckAccess> access = FirstInvalidAccess(log);
  if (!access) return "";
  const bool global = access->space.empty() || access->space == "__global__";
  std::string line = std::string(access->out_of_bounds ? "an out-of-bounds " : "an invalid ") +
                     access->operation + (global ? "" : " of " + access->space + " memory");
  if (!access->kernel.empty()) line += " in " + access->kernel;
  if (!access->thread.empty()) line += ", thread " + access->thread + " of block " + access->block;
  if (!access->source.empty()) line += " at " + access->source;
  if (!access->out_of_bounds || !global) return line;
  const std::optional<BufferPosition> at = LocateAccess(*access, buffers);
  if (!at) return line;
  const NamedBuffer* b = at->buffer;
  // Far from every allocation (farther than the allocation is long, and a page), the nearest one
  // is only the nearest: an element number there would send the student to the wrong matrix.
  const long long distance = at->offset < 0 ? -at->offset : at->offset - at->bytes + 1;
  if (distance > std::max<long long>(at->bytes, 4096))
    return line + ": an address far outside A, B and C (" + std::to_string(distance) +
           " bytes " + (at->offset < 0 ? "before" : "after") + " the nearest allocation" +
           (b != nullptr ? ", " + b->name : std::string()) + ")" +
           (b != nullptr && !b->case_name.empty() ? ", in " + b->case_name : std::string());
  matrix = b != nullptr ? b->matrix : "";
  std::string name = b != nullptr ? b->name : "";
  if (b == nullptr && !buffers.empty())
    name = "a " + std::to_string(at->bytes) + "-byte device buffer that is not A, B or C";
  line += ": " + OutOfBoundsPosition(at->offset, at->bytes, name);
  if (b != nullptr && !b->case_name.empty()) line += ", in " + b->case_name;
  return line;
}

}  // namespace

std::string SummariseSanitizerLog(const std::string& log, const std::string& tool,
                                  const std::vector<NamedBuffer>& buffers) {
  static const std::regex summary(R"((ERROR|RACECHECK) SUMMARY: (\d+) (error|hazard))");
  static const std::regex error_line(R"(=+ +(Invalid |Error: |Race reported|Program hit))");
  std::smatch m;
  const bool summarised = std::regex_search(log, m, summary);
  std::string found = summarised ? m[2].str() : "";
  std::string unit = summarised ? m[3].str() : (tool == "racecheck" ? "hazard" : "error");
  // The summary is printed when the program ends; the error lines as they happen. Either counts.
  if (summarised && std::stoi(found) == 0) return "";
  if (!summarised) {
    if (!std::regex_search(log, error_line)) return "";
    found = "at least 1";
  }
  std::istringstream lines(log);
  std::string line, kept;
  int count = 0;
  while (std::getline(lines, line) && count < 14) {
    const auto start = line.find_first_not_of("= ");
    if (start == std::string::npos) continue;
    const std::string text = line.substr(start);
    if (text.rfind("Saved host backtrace", 0) == 0 || text.rfind("Host Frame", 0) == 0) continue;
    kept += "  " + text + "\n";
    ++count;
  }
  const std::string counted = "compute-sanitizer " + tool + " found " + found + " " + unit + "(s)";
  // The first line names the cause; compute-sanitizer's own lines follow as the evidence.
  if (tool == "racecheck")
    return "a race in shared memory: threads read what another thread of the block writes, with "
           "no __syncthreads() between them (" +
           counted + "):\n" + kept +
           "Usual cause: a missing barrier after loading a tile, or before overwriting it.";
  const bool reads = log.find("Invalid __global__ read") != std::string::npos;
  const bool writes = log.find("Invalid __global__ write") != std::string::npos;
  std::string matrix;  // the matrix the first access fell next to, when known
  const std::string first = FirstAccessLine(log, buffers, matrix);
  if (!first.empty()) {
    const std::optional<MemcheckAccess> access = FirstInvalidAccess(log);
    const bool shared = access->space == "__shared__";
    const std::string cause =
        shared ? "an index into a __shared__ array past its size (a tile index that reaches "
                 "TILE, or a tile declared smaller than the block)."
               : UnguardedAccessCause(access->operation == "write", matrix);
    return first + ". " + counted + ":\n" + kept + "Usual cause: " + cause;
  }
  const std::string what = reads && !writes   ? "reads outside device memory"
                           : writes && !reads ? "writes outside device memory"
                                              : "accesses outside device memory";
  const std::string cause =
      reads && !writes   ? "a load of A or B (a partial tile's) without a bounds check."
      : writes && !reads ? "the store into C without a bounds check (row < m && col < k)."
                         : "a load of A or B, or the store into C, without a bounds check.";
  return what + " (" + counted + "):\n" + kept + "Usual cause: " + cause;
}

std::string SanitizerFindingText(const std::string& log, const std::string& tool,
                                 const std::vector<NamedBuffer>& buffers) {
  if (std::string summary = SummariseSanitizerLog(log, tool, buffers); !summary.empty())
    return summary;
  if (tool == "racecheck")
    return "a race in shared memory: compute-sanitizer racecheck found a hazard (its exit status "
           "says so), but its report is missing or unreadable. Usual cause: a missing "
           "__syncthreads() after loading a tile, or before overwriting it.";
  return "compute-sanitizer " + tool +
         " found errors (its exit status says so), but its report is missing or unreadable. "
         "Usual cause: an index outside A, B or C (a missing bounds check).";
}

std::string MemoryRefusalText(const MemoryRefusal& r) {
  const long long mib = 1LL << 20;
  return "labkit: " + (r.call.empty() ? std::string("an allocation") : r.call) + " of " +
         std::to_string(r.bytes) + " bytes refused: this program already holds " +
         std::to_string(r.in_use_bytes / mib) + " MiB of device memory and may hold " +
         std::to_string(r.limit_bytes / mib) + " MiB";
}

std::string DescribeDeath(const ProcessResult& p) {
  if (!p.started) return "the harness could not be started: " + p.start_error;
  // The sandbox says when its memory limit stopped the program (the output could be forged).
  if (p.memory_stop != ProcessResult::MemoryStop::kNone)
    return "it used more than the memory limit of " + std::to_string(p.memory_limit_bytes >> 20) +
           " MiB and was stopped by " +
           (p.memory_stop == ProcessResult::MemoryStop::kKernel ? "the kernel" : "labgrade") +
           ": it allocated far more host memory than a matrix product needs (a leak in a loop?)";
  if (p.timed_out)
    return "it did not finish within " + std::to_string(static_cast<int>(p.seconds + 0.5)) +
           " s and was stopped (an endless loop, or a barrier some threads never reach?)";
  if (p.signal != 0)
    return std::string("it crashed (") + p.Describe() +
           "): usually a host-side bug such as using a device pointer on the CPU";
  return "it stopped with " + p.Describe();
}

}  // namespace labkit
