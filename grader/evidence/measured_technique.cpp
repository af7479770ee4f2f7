#include "measured_technique.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "resource_report.h"

namespace labkit {

std::string Fixed1(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

namespace {

struct KernelTotal {
  std::string name;  // unmangled
  int launches = 0;
  MemoryAccesses sum;
};

// The launches' counts by kernel, in order of first launch.
std::vector<KernelTotal> ByKernel(const std::vector<LaunchInfo>& launches) {
  std::vector<KernelTotal> kernels;
  for (const LaunchInfo& l : launches) {
    const std::string name = FunctionName(l.kernel);
    auto it = std::find_if(kernels.begin(), kernels.end(),
                           [&](const KernelTotal& k) { return k.name == name; });
    if (it == kernels.end()) it = kernels.insert(kernels.end(), KernelTotal{name});
    ++it->launches;
    if (!l.accesses) continue;
    it->sum.global_load_bytes += l.accesses->ChargedGlobalLoadBytes();
    it->sum.global_store_bytes += l.accesses->global_store_bytes;
    it->sum.shared_loads += l.accesses->shared_loads;
    it->sum.shared_stores += l.accesses->shared_stores;
    it->sum.barriers += l.accesses->barriers;
  }
  return kernels;
}

MemoryAccesses Total(const std::vector<KernelTotal>& kernels) {
  MemoryAccesses total;
  for (const KernelTotal& k : kernels) {
    total.global_load_bytes += k.sum.global_load_bytes;
    total.global_store_bytes += k.sum.global_store_bytes;
    total.shared_loads += k.sum.shared_loads;
    total.shared_stores += k.sum.shared_stores;
    total.barriers += k.sum.barriers;
  }
  return total;
}

// Floats loaded from global memory per element of C.
double LoadsPerElement(const MemoryAccesses& a, const Shape& s) {
  return a.global_load_bytes / 4.0 / static_cast<double>(s.m * s.k);
}

// " (matmul_rows_kernel: 128.0, decoy_kernel: 0.0)" when more than one kernel ran.
std::string PerKernelLoads(const std::vector<KernelTotal>& kernels, const Shape& s) {
  if (kernels.size() < 2) return "";
  std::string text;
  for (const KernelTotal& k : kernels)
    text += (text.empty() ? " (" : ", ") + k.name + ": " + Fixed1(LoadsPerElement(k.sum, s));
  return text + ")";
}

// The most a tiled kernel with tiles of width 1 / fraction (2 for 0.5) loads per element of C, as
// a multiple of its 2n * fraction on whole tiles. Where m, n or k is not a multiple of the width,
// the last row, column or phase of tiles is partial and still costs a whole tile's loads: a correct
// kernel with tiles of 2 loads 198.5 floats per element of the 201 x 198 x 180 product, not 198.
double PartialTileAllowance(const Shape& s, double fraction) {
  const long long width = std::max(1L, std::lround(1.0 / fraction));
  const auto padded = [width](long long side) {
    return static_cast<double>((side + width - 1) / width * width) / static_cast<double>(side);
  };
  return padded(s.m) * padded(s.n) * padded(s.k);
}

std::string KernelWord(const std::vector<KernelTotal>& kernels) {
  return kernels.size() == 1 ? kernels.front().name : "your kernels";
}

}  // namespace

std::string CheckMeasuredTechnique(const MeasuredTechnique& rule,
                                   const std::vector<LaunchInfo>& launches,
                                   const std::vector<TransferInfo>& transfers) {
  const Shape& s = rule.shape;
  const std::string product = "the " + SpacedShapeText(s) + " product (m x n x k)";
  long long to_constant = 0;
  int copies = 0;
  for (const TransferInfo& t : transfers)
    if (t.kind == transfer_kind::kDeviceToConstant) {
      to_constant += t.bytes;
      ++copies;
    }
  if (copies > 0)
    return "in " + product + ", the function copied " + std::to_string(to_constant) +
           " bytes of device memory into __constant__ memory (" + std::to_string(copies) +
           (copies == 1 ? " cudaMemcpyToSymbol" : " cudaMemcpyToSymbol calls") +
           ", device to device). A kernel reads such values as constant loads, which the grader "
           "cannot count as reads of A and B. Keep __constant__ memory for values the host sets "
           "(a tile size, coefficients) and stage the tiles of A and B in __shared__ memory "
           "inside your kernel";
  if (launches.size() >= kLaunchesListed)
    return "the function launched " + std::to_string(launches.size()) + " or more kernels for " +
           product + "; the grader measures what at most " + std::to_string(kLaunchesListed - 1) +
           " launches do. Launch one kernel (or a few) that covers all of C";
  for (const LaunchInfo& l : launches)
    if (!l.accesses)
      return "the grader's counting run reported no memory accesses for " + FunctionName(l.kernel) +
             " (a fault of the grader, not of your code)";
  const std::vector<KernelTotal> kernels = ByKernel(launches);
  const MemoryAccesses total = Total(kernels);
  const std::string who = KernelWord(kernels);

  // Every element of C is stored and every element of A and B read at least once by a correct
  // product: counts below that mean accesses the instrumentation could not see (a function marked
  // no_sanitize, inline assembly), and then nothing can be concluded from them.
  const long long c_bytes = 4 * s.m * s.k, ab_bytes = 4 * (s.m * s.n + s.n * s.k);
  if (total.global_store_bytes < c_bytes || total.global_load_bytes < ab_bytes)
    return "in " + product + ", " + who + " stored " +
           std::to_string(total.global_store_bytes / 4) + " floats to global memory and loaded " +
           std::to_string(total.global_load_bytes / 4) + ", fewer than the " +
           std::to_string(s.m * s.k) + " elements of C and the " +
           std::to_string(s.m * s.n + s.n * s.k) +
           " of A and B that a correct product must write and read: some of its memory accesses "
           "were hidden from the grader's count (no_sanitize attributes or inline assembly are "
           "not allowed)";

  if (rule.max_global_loads_vs_rows) {
    const double measured = LoadsPerElement(total, s);
    const double rows = 2.0 * static_cast<double>(s.n);
    const double limit = *rule.max_global_loads_vs_rows * rows *
                         PartialTileAllowance(s, *rule.max_global_loads_vs_rows);
    if (measured > limit * (1 + 1e-9))  // a kernel at the limit passes, whatever the rounding
      return "in " + product + ", " + who + " loaded " + Fixed1(measured) +
             " floats from global memory per element of C" + PerKernelLoads(kernels, s) +
             ". The rows kernel loads " + Fixed1(rows) +
             " (2n: a row of A and a column of B); a tiled kernel loads each element of A and B "
             "into shared memory once per tile and then reads it there TILE times, so it loads "
             "2n / TILE (" +
             Fixed1(rows / 16) + " with 16 x 16 tiles). At most " + Fixed1(limit) +
             " passes. Stage tiles of A and B in __shared__ memory and compute from those";
  }
  if (rule.reads_shared && *rule.reads_shared && total.shared_loads == 0)
    return "in " + product + ", " + who + " never read shared memory" +
           (total.shared_stores > 0
                ? " (" + std::to_string(total.shared_stores) + " values were stored there)"
                : "") +
           ": the partial sums must be computed from the tiles in __shared__ memory";
  if (rule.min_shared_loads_vs_rows && total.shared_loads > 0) {
    const double measured =
        static_cast<double>(total.shared_loads) / static_cast<double>(s.m * s.k);
    const double tiled = 2.0 * static_cast<double>(s.n);
    const double least = *rule.min_shared_loads_vs_rows * tiled;
    if (measured < least)
      return "in " + product + ", " + who + " read shared memory " + Fixed1(measured) +
             " times per element of C. A tiled kernel computes each element from the tiles: " +
             Fixed1(tiled) +
             " reads there (2n: a row of the A tile and a column of the B tile, phase after "
             "phase), fewer with register blocking or vector loads, but at least " +
             Fixed1(least) +
             ". Compute the partial sums from the tiles in __shared__ memory, not from values "
             "kept in registers";
  }
  if (rule.reads_shared && !*rule.reads_shared && total.shared_loads > 0)
    return "in " + product + ", " + who + " read shared memory " +
           std::to_string(total.shared_loads) + " times; this exercise uses none";
  if (rule.executes_barrier && *rule.executes_barrier && total.barriers == 0)
    return "in " + product + ", " + who +
           " passed no __syncthreads(): the threads of a block must wait after filling the tiles "
           "and again before overwriting them";
  if (rule.executes_barrier && !*rule.executes_barrier && total.barriers > 0)
    return "in " + product + ", " + who + " passed " + std::to_string(total.barriers) +
           " __syncthreads() barriers; this exercise uses none";
  return "";
}

}  // namespace labkit
