// CPU backend: every launch of the emulator goes through emu::detail::launch(const LaunchRequest&).
// The harness is linked with `--wrap` on that symbol (SubmissionBuilder's link line), so this
// wrapper sees each launch, notes it, and hands it on unchanged.
#include <dlfcn.h>

#include <cstring>

#include "harness_protocol.h"
#include "labkit_emu/access_counts.h"
#include "labkit_emu/launch.h"
#include "launch_log.h"
#include "link_wraps.h"
#include "presented_device.cuh"
#include "replay_recorder.h"

// emu::detail::launch(emu::detail::LaunchRequest const&) under the names the linker's --wrap gives
// it (LABKIT_EMU_LAUNCH is its mangled name).
extern "C" void labkit_real_launch(const emu::detail::LaunchRequest& request) __asm__(
    "__real_" LABKIT_EMU_LAUNCH);
extern "C" void labkit_wrap_launch(const emu::detail::LaunchRequest& request) __asm__(
    "__wrap_" LABKIT_EMU_LAUNCH);

namespace {

// The counts as a response line names them.
std::vector<std::pair<const char*, unsigned long long>> AccessPairs(const emu::AccessCounts& c) {
  namespace count = labkit::access_count;
  return {{count::kGlobalLoads, c.global_loads},
          {count::kGlobalLoadBytes, c.global_load_bytes},
          {count::kWarpGlobalLoadBytes, c.warp_global_load_bytes},
          {count::kGlobalStores, c.global_stores},
          {count::kGlobalStoreBytes, c.global_store_bytes},
          {count::kSharedLoads, c.shared_loads},
          {count::kSharedLoadBytes, c.shared_load_bytes},
          {count::kSharedStores, c.shared_stores},
          {count::kSharedStoreBytes, c.shared_store_bytes},
          {count::kBarriers, c.barriers},
          {count::kStaticSharedBytes, c.static_shared_bytes}};
}

// The launch as a record run's plan holds it: the closure's bytes (the kernel's pointer and the
// arguments), its runner, and where each pointer argument sits in the bytes.
void NotePlannedLaunch(const emu::detail::LaunchRequest& request) {
  labkit::replay::LaunchNote note;
  note.kernel = request.kernel;
  note.grid[0] = request.grid.x, note.grid[1] = request.grid.y, note.grid[2] = request.grid.z;
  note.block[0] = request.block.x, note.block[1] = request.block.y,
  note.block[2] = request.block.z;
  note.shared_bytes = request.dynamic_smem;
  const auto* bytes = static_cast<const unsigned char*>(request.closure);
  note.arguments.assign(bytes, bytes + request.closure_bytes);
  note.runner = reinterpret_cast<const void*>(request.run_thread);
  uint32_t searched_from = 0;
  for (int i = 0; i < request.pointer_count; ++i) {
    // Arguments lie in order in the closure: the next aligned word that holds the value.
    for (uint32_t at = searched_from; at + sizeof(void*) <= note.arguments.size();
         at += sizeof(void*)) {
      const void* word = nullptr;
      std::memcpy(&word, note.arguments.data() + at, sizeof word);
      if (word != request.pointers[i].value) continue;
      note.pointer_params.push_back(static_cast<uint32_t>(request.pointers[i].index));
      note.pointer_offsets.push_back(at);
      searched_from = at + sizeof(void*);
      break;
    }
  }
  labkit::replay::NoteLaunch(note);
}

}  // namespace

extern "C" void labkit_wrap_launch(const emu::detail::LaunchRequest& request) {
  labkit::LaunchRecord record;
  Dl_info info{};
  record.kernel =
      dladdr(request.kernel, &info) != 0 && info.dli_sname != nullptr ? info.dli_sname : "?";
  record.function = request.kernel;
  record.grid[0] = request.grid.x, record.grid[1] = request.grid.y, record.grid[2] = request.grid.z;
  record.block[0] = request.block.x, record.block[1] = request.block.y,
  record.block[2] = request.block.z;
  record.dynamic_shared_bytes = request.dynamic_smem;
  // A record run only notes the launch: its kernels run in the replay, on the real inputs.
  if (labkit::replay::Recording()) {
    labkit::RecordLaunch(record);
    return NotePlannedLaunch(request);
  }
  // A block the device a query is shown cannot hold is refused by emu itself
  // (presented_device.cuh).
  if (labkit::PresentedDeviceRefusesBlock(request.block.x, request.block.y, request.block.z)) {
    emu::detail::LaunchRequest refused = request;
    refused.block = dim3(labkit::kBlockNoDeviceHolds);
    labkit_real_launch(refused);
  } else {
    labkit_real_launch(request);
  }
  // Noted after the launch, which is synchronous here, so that its access counts come along
  // (replaced by the sealed ones when the case ends: UseSealedCounts).
  if (const emu::AccessCounts* c = emu::detail::last_launch_access_counts())
    record.accesses = AccessPairs(*c);
  labkit::RecordLaunch(record);
}

namespace labkit {
void InstallLaunchHook() {}  // the link's --wrap already routes every launch here

void UseSealedCounts(std::vector<LaunchRecord>& launches) {
  const std::vector<emu::AccessCounts> sealed = emu::detail::sealed_counts_of_case();
  for (std::size_t i = 0; i < launches.size(); ++i) {
    if (i < sealed.size())
      launches[i].accesses = AccessPairs(sealed[i]);
    else
      launches[i].accesses.clear();
  }
  if (launches.empty() || sealed.size() <= launches.size()) return;
  emu::AccessCounts rest = sealed[launches.size() - 1];
  for (std::size_t i = launches.size(); i < sealed.size(); ++i) rest += sealed[i];
  launches.back().accesses = AccessPairs(rest);
}
}  // namespace labkit
