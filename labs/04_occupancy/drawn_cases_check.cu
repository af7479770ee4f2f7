// On a GPU: the reference solution's occupancy, worked out by hand as the handout teaches, against
// cudaOccupancyMaxActiveBlocksPerMultiprocessor over the ranges lab.yaml draws the occupancy
// exercise's cases from (`drawn`). A correct student's answer must equal the API's for every case
// the grader may draw; where the two part, the range holds a case the handout's formula does not
// cover, and would fail correct students. Every block size at a few shared-memory sizes (the edges
// included), then many cases drawn at random, for each kernel in the range. labgrade's own formula
// (occupancy_formula.h, the drawn cases' expected values) is held to the API the same way, and the
// kit's kernels to the registers lab.yaml says they have (drawn.known). labgrade's search for the
// block size cudaOccupancyMaxPotentialBlockSizeVariableSMem suggests (block_side's drawn cases) is
// held to that API too, for kernels of few and many registers and one with __launch_bounds__.
//   lab04_drawn_cases_check LAB_DIR     exit 0: all agree; 1: a case differs; 77: no GPU
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "lab_spec.h"
#include "labkit/cuda_check.cuh"
#include "occupancy_case_kernels.cuh"
#include "occupancy_lab.cuh"

namespace {

namespace formula = labkit::occupancy_formula;

struct Case {
  long long kernel, threads, dynamic_smem;
};

// Every whole `step` from low to high, or `count` of them at random (the ends always).
std::vector<long long> ValuesOf(const labkit::ParamRange& r, std::size_t count,
                                std::mt19937_64& rng) {
  const long long steps = (r.high - r.low) / r.step;
  std::vector<long long> values = {r.low, r.low + steps * r.step};
  if (static_cast<std::size_t>(steps) < count) {
    for (long long i = 1; i < steps; ++i) values.push_back(r.low + i * r.step);
  } else {
    std::uniform_int_distribution<long long> pick(1, steps - 1);
    while (values.size() < count) values.push_back(r.low + pick(rng) * r.step);
  }
  return values;
}

// Kernels for the suggested block size beside the kit's and the student's: one held to 256
// threads a block by __launch_bounds__ (the suggestion's limit), and one of many registers.
__global__ void __launch_bounds__(256) bounded_to_256(const float* in, float* out, int n) {
  hold_live_values<16>(in, out, n);
}
__global__ void __maxnreg__(96) many_registers(const float* in, float* out, int n) {
  hold_live_values<160>(in, out, n);
}

// labgrade's search for the size cudaOccupancyMaxPotentialBlockSizeVariableSMem suggests
// (occupancy_formula.h suggested_block, lab 04's block_side drawn cases) against the API itself,
// with the lab's two floats a thread, for every limit from 1 to this GPU's block limit. Returns
// the number of limits that differ.
int SuggestedSidesDiffer(const cudaDeviceProp& prop) {
  const void* kernels[] = {reinterpret_cast<const void*>(matmul_dynamic_kernel),
                           case_kernel(2).function, case_kernel(3).function,
                           reinterpret_cast<const void*>(bounded_to_256),
                           reinterpret_cast<const void*>(many_registers)};
  int differ = 0, asked = 0;
  for (const void* kernel : kernels) {
    cudaFuncAttributes a{};
    LABKIT_CUDA_CHECK(cudaFuncGetAttributes(&a, kernel));
    for (int limit = 1; limit <= prop.maxThreadsPerBlock; ++limit, ++asked) {
      int min_grid = 0, api = 0;
      LABKIT_CUDA_CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(
          &min_grid, &api, kernel, required_shared_bytes, limit));
      const formula::Multiprocessor sm = multiprocessor_of(prop);
      const formula::Suggestion by_grader = formula::suggested_block(
          sm, resources_of(a),
          formula::suggestion_limit(limit, prop.maxThreadsPerBlock, a.maxThreadsPerBlock),
          [](long long t) {
            return static_cast<long long>(required_shared_bytes(static_cast<int>(t)));
          });
      if (by_grader.threads == api) continue;
      if (++differ <= 20)
        std::printf(
            "differs: a kernel of %d registers (%d threads a block at most), limit %d: "
            "the API suggests %d threads, labgrade's search %lld\n",
            a.numRegs, a.maxThreadsPerBlock, limit, api, by_grader.threads);
    }
  }
  std::printf("%s: %d suggested block sizes, %d differ from the occupancy API\n", prop.name, asked,
              differ);
  return differ;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s LAB_DIR (labs/04_occupancy)\n", argv[0]);
    return 2;
  }
  const labkit::Result<labkit::LabSpec> spec = labkit::LoadLabSpec(argv[1]);
  if (!spec.ok()) {
    std::fprintf(stderr, "%s\n", spec.error().c_str());
    return 2;
  }
  const auto ex = std::find_if(spec->exercises.begin(), spec->exercises.end(),
                               [](const labkit::Exercise& e) { return e.id == "occupancy"; });
  if (ex == spec->exercises.end() || !ex->drawn) {
    std::fprintf(stderr, "lab.yaml's occupancy exercise draws no cases: nothing to check\n");
    return 2;
  }
  const auto& ranges = ex->drawn->ranges;
  for (const char* name : {"kernel", "threads", "dynamic_smem"})
    if (!ranges.count(name)) {
      std::fprintf(stderr, "lab.yaml's drawn ranges name no %s\n", name);
      return 2;
    }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "the check needs a GPU: none answers here\n");
    return 77;  // CTest's skip code for the gpu-labelled tests
  }
  cudaDeviceProp prop{};
  LABKIT_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));

  std::mt19937_64 rng(20261128);  // fixed: the same cases on every run
  std::vector<Case> cases;
  const std::vector<long long> kernels = ValuesOf(ranges.at("kernel"), 64, rng);
  const labkit::ParamRange& threads = ranges.at("threads");
  const labkit::ParamRange& smem = ranges.at("dynamic_smem");
  for (long long kernel : kernels) {
    // Every block size at the shared-memory range's ends and a few sizes between.
    for (long long bytes : ValuesOf(smem, 3, rng))
      for (long long t = threads.low; t <= threads.high; t += threads.step)
        cases.push_back({kernel, t, bytes});
    for (int i = 0; i < 1000; ++i) {
      std::uniform_int_distribution<long long> t(0, (threads.high - threads.low) / threads.step);
      std::uniform_int_distribution<long long> b(0, (smem.high - smem.low) / smem.step);
      cases.push_back({kernel, threads.low + t(rng) * threads.step, smem.low + b(rng) * smem.step});
    }
  }

  int differ = 0;
  for (const Case& c : cases) {
    const CaseKernel k = case_kernel(c.kernel);
    cudaFuncAttributes attributes{};
    LABKIT_CUDA_CHECK(cudaFuncGetAttributes(&attributes, k.function));
    // labgrade works the drawn cases' answers out from lab.yaml's count (drawn.known): the kernel
    // must have it.
    const auto known = ex->drawn->known.find("registers_of_kernel_" + std::to_string(c.kernel));
    const long long yaml_registers = known == ex->drawn->known.end() ? -1 : known->second;
    if (k.pinned_registers > 0 &&
        (attributes.numRegs != k.pinned_registers || attributes.numRegs != yaml_registers)) {
      std::fprintf(stderr, "kernel %lld compiled to %d registers, not its %d (lab.yaml: %lld)\n",
                   c.kernel, attributes.numRegs, k.pinned_registers, yaml_registers);
      return 1;
    }
    int api = 0;
    LABKIT_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &api, k.function, static_cast<int>(c.threads), static_cast<size_t>(c.dynamic_smem)));
    const int by_hand = max_active_blocks_per_sm(k.function, static_cast<int>(c.threads),
                                                 static_cast<size_t>(c.dynamic_smem));
    const double occupancy = formula::occupancy(multiprocessor_of(prop), api, c.threads);
    const double occupancy_by_hand = theoretical_occupancy(k.function, static_cast<int>(c.threads),
                                                           static_cast<size_t>(c.dynamic_smem));
    // labgrade's own formula (drawn_expected.cpp) on this GPU's limits.
    const long long by_grader = formula::active_blocks(
        multiprocessor_of(prop), resources_of(attributes), c.threads, c.dynamic_smem);
    if (by_hand == api && by_grader == api &&
        std::abs(occupancy_by_hand - occupancy) <= 1e-9 * occupancy)
      continue;
    if (++differ <= 20)
      std::printf(
          "differs: kernel %lld, %lld threads, %lld bytes: API %d blocks (occupancy %g), "
          "by hand %d (%g), labgrade's formula %lld\n",
          c.kernel, c.threads, c.dynamic_smem, api, occupancy, by_hand, occupancy_by_hand,
          by_grader);
  }
  std::printf("%s: %zu cases of lab.yaml's drawn ranges, %d differ from the occupancy API\n",
              prop.name, cases.size(), differ);
  differ += SuggestedSidesDiffer(prop);
  return differ == 0 ? 0 : 1;
}
