// A device 0 whose blocks hold fewer threads than the GPU's, shown to the student's function while
// it runs. Lab 01 asks for the largest width one block can take, read from the device; every GPU
// since Fermi (and the CPU backend's modelled one) holds 1024 threads a block, so a hard-coded 32
// would pass on the one device the grader has. Its query therefore also runs on a limit drawn from
// the grader's seed (lab.yaml `drawn`), presented through every way the runtime tells it.
//
// The link wraps of those ways (device_query_wrap_gpu.cu, device_query_hook_emu.cpp) call the
// runtime and pass its answer through the functions below, which change it only while a
// PresentedBlockLimit is open: the kit's own calls outside one see the device as it is. Shared by
// both backends, so that a GPU and the CPU backend present the same device.
#pragma once

namespace labkit {

// Presents the limit while alive (one at a time). `threads` is at least 1; a limit above the
// device's own changes nothing (the device is never shown as larger than it is).
class PresentedBlockLimit {
 public:
  explicit PresentedBlockLimit(int threads);
  ~PresentedBlockLimit();
  PresentedBlockLimit(const PresentedBlockLimit&) = delete;
  PresentedBlockLimit& operator=(const PresentedBlockLimit&) = delete;

  // Whether anything asked the presented device its limit since this opened: a call through one
  // of the wraps below whose answer the presented limit changed, or a launch it refused that the
  // device itself would take. A function that answers without asking answers
  // from something other than the device it runs on: a number in the source, one kept from an
  // earlier call, or (r18) one read out of the harness's memory, where the presented limit has to
  // be while the function runs.
  bool asked() const;
};

// The limits of one multiprocessor, for a device shown in the GPU's place. Lab 04 asks for blocks
// per SM worked out by hand from the device's limits; on the one GPU the grader has, the real
// occupancy API gives that answer, and a function that finds the real API behind the harness's
// wrap (decoding the wrap's jump to it) would copy it unnoted. Its drawn cases therefore run on a
// multiprocessor whose limits are drawn from the seed (lab.yaml `drawn`), for which the real
// API's answer is the wrong one.
struct MultiprocessorLimits {
  int threads = 0;         // maxThreadsPerMultiProcessor
  int blocks = 0;          // maxBlocksPerMultiProcessor
  int registers = 0;       // regsPerMultiprocessor (a block's limit, regsPerBlock, at most this)
  long long shared = 0;    // sharedMemPerMultiprocessor, in bytes
  long long reserved = 0;  // reservedSharedMemPerBlock, the runtime's shared memory per block
  int warp_size = 0;       // warpSize
  // sharedMemPerBlockOptin: what one block may opt in to, the multiprocessor's shared memory less
  // the runtime's reserve on every GPU (a student may work the SM's out from it)
  long long block_optin = 0;
};

// Presents `limits` in every query of the device while alive (one at a time); each limit must be
// positive.
class PresentedMultiprocessor {
 public:
  explicit PresentedMultiprocessor(const MultiprocessorLimits& limits);
  ~PresentedMultiprocessor();
  PresentedMultiprocessor(const PresentedMultiprocessor&) = delete;
  PresentedMultiprocessor& operator=(const PresentedMultiprocessor&) = delete;
};

// `threads`, a limit on a block's threads (in all, or along one side) as the runtime gave it, as
// the presented device has it: at most the presented limit. Unchanged when none is open.
int PresentedThreadLimit(int threads);

// Whether the presented device would refuse a block of x * y * z threads (more than its limit);
// false while none is open. The launch wraps then hand the runtime kBlockNoDeviceHolds in the
// block's place, so that the runtime itself refuses the launch (cudaErrorInvalidConfiguration,
// in its own error state for cudaGetLastError), as a launch above a real device's limit is: a
// student who finds the width by trying launches of W x W threads sees the presented device too.
bool PresentedDeviceRefusesBlock(unsigned x, unsigned y, unsigned z);
inline constexpr unsigned kBlockNoDeviceHolds = 1u << 20;  // threads along x, far past any limit

// cudaGetDeviceProperties' answer: maxThreadsPerBlock and each side of maxThreadsDim; and while a
// PresentedMultiprocessor is open, the multiprocessor's limits (and regsPerBlock, which cannot
// exceed them, reservedSharedMemPerBlock, sharedMemPerBlockOptin and warpSize).
void PresentDeviceProperties(cudaDeviceProp& prop);
// cudaDeviceGetAttribute's: the same limits (cudaDevAttrMaxThreadsPerBlock, MaxBlockDimX, Y and Z;
// the multiprocessor's); every other attribute as the runtime gave it.
void PresentDeviceAttribute(cudaDeviceAttr attr, int& value);
// cudaOccupancyMaxActiveBlocksPerMultiprocessor's (and its WithFlags form's) for `func`: no
// resident blocks for a block above the presented limit, as on a real device (and that asks it, as
// a refused launch does): lab 01's width can be found by asking the API block size by block size.
// While a PresentedMultiprocessor is open, the handout's formula (occupancy_formula.h) on its
// limits and the kernel's resources, as the runtime would answer on such a GPU: a block above the
// kernel's maxThreadsPerBlock, or asking more dynamic shared memory than it may, holds none.
void PresentActiveBlocks(const void* func, int block_size, size_t dynamic_smem, int& blocks);
// cudaOccupancyMaxPotentialBlockSize*'s while a PresentedMultiprocessor is open: CUDA's template
// (occupancy_formula::suggested_block) on the presented device, for a backend whose runtime works
// the suggestion out from its own device model (the CPU backend's); false, and nothing set, when
// none is open. A GPU needs none: CUDA's template reads the wrapped queries above.
bool PresentSuggestedBlock(const void* func, size_t (*shared_of)(const void* functor, int),
                           const void* functor, int block_size_limit, int& min_grid_size,
                           int& block_size);
// cudaFuncGetAttributes': the kernel's maxThreadsPerBlock, which a real device never gives above
// its own limit.
void PresentFuncAttributes(cudaFuncAttributes& attr);

}  // namespace labkit
