#include <algorithm>
#include <atomic>

#include "labkit/occupancy_runtime_view.cuh"
#include "presented_device.cuh"

namespace labkit {
namespace {

// 0 while no limit is presented. Atomic: a thread the student's function started may read the
// device while the harness's thread closes the presentation.
std::atomic<int> g_presented_threads{0};
// Queries of the limit (and refused launches) while one is presented.
std::atomic<int> g_asked{0};

// The most threads a block of any GPU since Fermi holds, and the CPU backend's modelled one.
constexpr unsigned long long kDeviceThreadsPerBlock = 1024;

// The presented multiprocessor: written before `g_multiprocessor_open` is set, read after it is.
MultiprocessorLimits g_multiprocessor;
std::atomic<bool> g_multiprocessor_open{false};

const MultiprocessorLimits* PresentedLimits() {
  return g_multiprocessor_open.load() ? &g_multiprocessor : nullptr;
}

}  // namespace

PresentedMultiprocessor::PresentedMultiprocessor(const MultiprocessorLimits& limits) {
  g_multiprocessor = limits;
  g_multiprocessor_open.store(true);
}

PresentedMultiprocessor::~PresentedMultiprocessor() { g_multiprocessor_open.store(false); }

PresentedBlockLimit::PresentedBlockLimit(int threads) {
  g_asked.store(0);
  g_presented_threads.store(threads);
}

bool PresentedBlockLimit::asked() const { return g_asked.load() > 0; }

PresentedBlockLimit::~PresentedBlockLimit() { g_presented_threads.store(0); }

int PresentedThreadLimit(int threads) {
  const int presented = g_presented_threads.load();
  // Asked only when the answer is the presented limit in the device's place: a side of 64, the
  // same on every presented device, tells nothing of it (r21).
  if (presented > 0 && presented < threads) {
    g_asked.fetch_add(1);
    return presented;
  }
  return threads;
}

bool PresentedDeviceRefusesBlock(unsigned x, unsigned y, unsigned z) {
  const int presented = g_presented_threads.load();
  const unsigned long long threads = static_cast<unsigned long long>(x) * y * z;
  const bool refused = presented > 0 && threads > static_cast<unsigned long long>(presented);
  // Asked only by a block the device itself would take: one refused everywhere tells nothing of
  // the presented limit.
  if (refused && threads <= kDeviceThreadsPerBlock) g_asked.fetch_add(1);
  return refused;
}

void PresentDeviceProperties(cudaDeviceProp& prop) {
  prop.maxThreadsPerBlock = PresentedThreadLimit(prop.maxThreadsPerBlock);
  // A side longer than the block's limit could never be filled (the first GPUs, of 512 threads a
  // block, had sides of 512 too).
  for (int& side : prop.maxThreadsDim) side = PresentedThreadLimit(side);
  if (const MultiprocessorLimits* sm = PresentedLimits()) {
    prop.maxThreadsPerMultiProcessor = sm->threads;
    prop.maxBlocksPerMultiProcessor = sm->blocks;
    prop.regsPerMultiprocessor = sm->registers;
    prop.regsPerBlock = std::min(prop.regsPerBlock, sm->registers);
    prop.sharedMemPerMultiprocessor = static_cast<size_t>(sm->shared);
    prop.sharedMemPerBlockOptin = static_cast<size_t>(sm->block_optin);
    prop.reservedSharedMemPerBlock = static_cast<size_t>(sm->reserved);
    prop.warpSize = sm->warp_size;
  }
}

void PresentDeviceAttribute(cudaDeviceAttr attr, int& value) {
  if (attr == cudaDevAttrMaxThreadsPerBlock || attr == cudaDevAttrMaxBlockDimX ||
      attr == cudaDevAttrMaxBlockDimY || attr == cudaDevAttrMaxBlockDimZ)
    value = PresentedThreadLimit(value);
  const MultiprocessorLimits* sm = PresentedLimits();
  if (sm == nullptr) return;
  // The same limits as PresentDeviceProperties changes.
  switch (attr) {
    case cudaDevAttrMaxThreadsPerMultiProcessor:
      value = sm->threads;
      break;
    case cudaDevAttrMaxBlocksPerMultiprocessor:
      value = sm->blocks;
      break;
    case cudaDevAttrMaxRegistersPerMultiprocessor:
      value = sm->registers;
      break;
    case cudaDevAttrMaxRegistersPerBlock:
      value = std::min(value, sm->registers);
      break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
      value = static_cast<int>(sm->shared);
      break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin:
      value = static_cast<int>(sm->block_optin);
      break;
    case cudaDevAttrReservedSharedMemoryPerBlock:
      value = static_cast<int>(sm->reserved);
      break;
    case cudaDevAttrWarpSize:
      value = sm->warp_size;
      break;
    default:
      break;
  }
}

namespace {
namespace formula = occupancy_formula;

// The formula's view of the presented multiprocessor (its fields in occupancy_formula.h's order).
formula::Multiprocessor FormulaView(const MultiprocessorLimits& sm) {
  return {sm.warp_size, sm.threads, sm.blocks, sm.registers, sm.shared, sm.reserved};
}

}  // namespace

void PresentActiveBlocks(const void* func, int block_size, size_t dynamic_smem, int& blocks) {
  if (block_size > 0 && PresentedDeviceRefusesBlock(static_cast<unsigned>(block_size), 1, 1)) {
    blocks = 0;
    return;
  }
  const MultiprocessorLimits* sm = PresentedLimits();
  cudaFuncAttributes a{};
  // Where the attributes cannot be read, the runtime's answer stands (its call succeeded).
  if (sm != nullptr && cudaFuncGetAttributes(&a, func) == cudaSuccess)
    blocks = static_cast<int>(formula::launchable_blocks(FormulaView(*sm), formula::resources_of(a),
                                                         block_size,
                                                         static_cast<long long>(dynamic_smem)));
}

void PresentFuncAttributes(cudaFuncAttributes& attr) {
  attr.maxThreadsPerBlock = PresentedThreadLimit(attr.maxThreadsPerBlock);
}

bool PresentSuggestedBlock(const void* func, size_t (*shared_of)(const void* functor, int),
                           const void* functor, int block_size_limit, int& min_grid_size,
                           int& block_size) {
  const MultiprocessorLimits* sm = PresentedLimits();
  if (sm == nullptr) return false;
  cudaFuncAttributes a{};
  int device_threads = 0, processors = 0;
  if (cudaFuncGetAttributes(&a, func) != cudaSuccess ||
      cudaDeviceGetAttribute(&device_threads, cudaDevAttrMaxThreadsPerBlock, 0) != cudaSuccess ||
      cudaDeviceGetAttribute(&processors, cudaDevAttrMultiProcessorCount, 0) != cudaSuccess)
    return false;
  const long long limit =
      formula::suggestion_limit(block_size_limit, device_threads, a.maxThreadsPerBlock);
  const formula::Suggestion best = formula::suggested_block(
      FormulaView(*sm), formula::resources_of(a), limit, [&](long long size) {
        return static_cast<long long>(shared_of(functor, static_cast<int>(size)));
      });
  block_size = static_cast<int>(best.threads);
  min_grid_size = static_cast<int>(best.blocks) * processors;
  return true;
}

}  // namespace labkit
