#include "drawn_expected.h"

#include <utility>

#include "labkit/occupancy_formula.h"
#include "labkit/occupancy_hints.h"

namespace labkit {
namespace {

// One parameter of the case, or of `known`; an error naming it when absent.
struct Lookup {
  const ParamSet& set;
  const char* where;
  std::string missing;
  long long operator()(const std::string& name) {
    const auto it = set.find(name);
    if (it != set.end()) return it->second;
    if (missing.empty()) missing = name + " (in " + where + ")";
    return 0;
  }
};

namespace formula = occupancy_formula;

// cudaDeviceProp::sharedMemPerBlock: what a block may use without opting in, every GPU since Fermi.
constexpr long long kSharedBytesPerBlock = 48 * 1024;

// The multiprocessor a lab 04 case drew (its `sm_*` parameters).
formula::Multiprocessor DrawnMultiprocessor(Lookup& param) {
  formula::Multiprocessor sm;
  sm.warp_size = param("sm_warp_size");
  sm.threads = param("sm_warps") * sm.warp_size;
  sm.blocks = param("sm_blocks");
  sm.registers = param("sm_registers");
  sm.shared = param("sm_shared");
  sm.reserved = param("sm_reserved");
  return sm;
}

// Lab 04's exercise 1 on a drawn multiprocessor: blocks per SM and the occupancy they give, for
// one of the kit's kernels, whose registers lab.yaml knows (`registers_of_kernel_<n>`; their
// static shared memory is none, which the harness checks on every case).
Result<DrawnValues> Occupancy(const QueryDrawn& drawn, const ParamSet& params) {
  Lookup param{params, "the case"}, known{drawn.known, "drawn.known"};
  const formula::Multiprocessor sm = DrawnMultiprocessor(param);
  const long long threads = param("threads"), dynamic_shared = param("dynamic_smem");
  const std::string kernel = std::to_string(param("kernel"));
  const formula::KernelResources resources{known("registers_of_kernel_" + kernel), 0};
  if (!param.missing.empty() || !known.missing.empty())
    return MakeError("the occupancy formula needs " +
                     (param.missing.empty() ? known.missing : param.missing));
  if (sm.warp_size <= 0 || sm.threads <= 0 || threads <= 0)
    return MakeError("the occupancy formula needs a warp size, warp slots and threads above 0");
  const long long blocks = formula::active_blocks(sm, resources, threads, dynamic_shared);
  DrawnValues values;
  values.expected = {{"active_blocks", static_cast<double>(blocks)},
                     {"occupancy", formula::occupancy(sm, blocks, threads)}};
  // The SM count is not the drawn multiprocessor's: the hint that needs it is lab.yaml's cases'.
  for (formula::Hint& h : formula::occupancy_hints(sm, resources, threads, dynamic_shared, 0))
    values.hints.push_back({std::move(h.value_name), h.value, std::move(h.cause)});
  return values;
}

// Lab 01's widest square block on a device whose blocks hold max_threads_per_block threads (its
// sides hold as many: the presented device's are held to the limit).
Result<DrawnValues> LargestSquareBlock(const ParamSet& params) {
  Lookup param{params, "the case"};
  const long long threads = param("max_threads_per_block");
  if (!param.missing.empty()) return MakeError("the widest square block needs " + param.missing);
  long long width = 0;
  while ((width + 1) * (width + 1) <= threads) ++width;
  return DrawnValues{{{"width", static_cast<double>(width)}}, {}};
}

// Lab 04's exercise 3 on a drawn multiprocessor: the side of the largest power of 4 within the
// block size cudaOccupancyMaxPotentialBlockSizeVariableSMem suggests for the student's kernel,
// with `max_threads` as the limit and lab.yaml's `shared_bytes_per_thread` of dynamic shared
// memory a thread (lab 04: two floats, one of each tile).
Result<DrawnValues> SuggestedBlockSide(const QueryDrawn& drawn, const ParamSet& params,
                                       const StudentKernel& kernel) {
  Lookup param{params, "the case"}, known{drawn.known, "drawn.known"};
  const formula::Multiprocessor sm = DrawnMultiprocessor(param);
  const long long max_threads = param("max_threads");
  const long long shared_per_thread = known("shared_bytes_per_thread");
  if (!param.missing.empty() || !known.missing.empty())
    return MakeError("the suggested block side needs " +
                     (param.missing.empty() ? known.missing : param.missing));
  if (sm.warp_size <= 0 || sm.threads <= 0)
    return MakeError("the suggested block side needs a warp size and warp slots above 0");
  if (!kernel.known)
    return MakeError("the resources of " + drawn.kernel + " are unknown: " + kernel.unknown_why);
  // A launch may ask for at most 48 KiB of shared memory less the kernel's static share without
  // opting in (cudaFuncAttributes::maxDynamicSharedSizeBytes, on every GPU and on the CPU
  // backend's).
  const formula::KernelResources resources{kernel.registers, kernel.static_shared,
                                           kernel.max_threads,
                                           kSharedBytesPerBlock - kernel.static_shared};
  // A GPU's every block holds at most 1024 threads, as the CPU backend's modelled one does.
  const long long limit = formula::suggestion_limit(max_threads, 1024, kernel.max_threads);
  const formula::Suggestion suggested = formula::suggested_block(
      sm, resources, limit, [&](long long threads) { return shared_per_thread * threads; });
  DrawnValues values;
  values.expected = {
      {"block_side", static_cast<double>(formula::power_of_two_side(suggested.threads))}};
  for (formula::Hint& h : formula::block_side_hints(suggested.threads))
    values.hints.push_back({std::move(h.value_name), h.value, std::move(h.cause)});
  return values;
}

}  // namespace

Result<DrawnValues> DrawnExpectedValues(const QueryDrawn& drawn, const ParamSet& params,
                                        const StudentKernel& kernel) {
  switch (drawn.expected_by) {
    case DrawnExpected::kSuggestedBlockSide:
      return SuggestedBlockSide(drawn, params, kernel);
    case DrawnExpected::kOccupancyFormula:
      return Occupancy(drawn, params);
    case DrawnExpected::kLargestSquareBlock:
      return LargestSquareBlock(params);
    case DrawnExpected::kHarness:
      break;
  }
  return DrawnValues{};
}

}  // namespace labkit
