#include "device_model.h"

#include <cstdio>
#include <cstring>
#include <string>

#include "config.h"

namespace emu::detail {
namespace {

// What every modelled device shares (CUDA limits unchanged since compute capability 3.0).
cudaDeviceProp common_properties() {
  cudaDeviceProp p;
  std::memset(&p, 0, sizeof p);
  p.warpSize = 32;
  p.maxThreadsPerBlock = 1024;
  p.maxThreadsDim[0] = 1024;
  p.maxThreadsDim[1] = 1024;
  p.maxThreadsDim[2] = 64;
  p.maxGridSize[0] = 2147483647;
  p.maxGridSize[1] = 65535;
  p.maxGridSize[2] = 65535;
  p.sharedMemPerBlock = 48 * 1024;
  p.totalConstMem = 64 * 1024;
  p.memPitch = 2147483647;
  p.textureAlignment = 512;
  p.texturePitchAlignment = 32;
  p.surfaceAlignment = 512;
  p.concurrentKernels = 1;
  p.canMapHostMemory = 1;
  p.unifiedAddressing = 1;
  p.managedMemory = 1;
  p.concurrentManagedAccess = 1;
  p.streamPrioritiesSupported = 1;
  p.globalL1CacheSupported = 1;
  p.localL1CacheSupported = 1;
  p.computePreemptionSupported = 1;
  p.cooperativeLaunch = 1;
  p.hostRegisterSupported = 1;
  p.memoryPoolsSupported = 1;
  p.deviceOverlap = 1;
  p.computeMode = 0;
  p.hostNumaId = -1;
  p.deviceNumaId = -1;
  return p;
}

// The per-device numbers, from NVIDIA's public specifications and what cudaGetDeviceProperties
// reports on each GPU.
struct DeviceSpec {
  const char* id;  // LABKIT_EMU_DEVICE
  const char* name;
  int major, minor;
  size_t memory_mib;
  int sms, threads_per_sm, blocks_per_sm;
  size_t smem_per_sm, smem_optin, smem_reserved;
  int l2_bytes, persisting_l2_bytes;
  int clock_khz, memory_clock_khz, bus_bits;
  int fp32_to_fp64_ratio;
  int cluster_launch;
};

constexpr DeviceSpec kDevices[] = {
    {"h100-sxm", "NVIDIA H100 80GB HBM3", 9, 0, 81559, 132, 2048, 32, 233472, 232448, 1024,
     50 * 1024 * 1024, 41 * 1024 * 1024, 1980000, 2619000, 5120, 2, 1},
    {"a100-sxm", "NVIDIA A100-SXM4-80GB", 8, 0, 81920, 108, 2048, 32, 167936, 166912, 1024,
     40 * 1024 * 1024, 30 * 1024 * 1024, 1410000, 1593000, 5120, 2, 0},
    {"t4", "Tesla T4", 7, 5, 15360, 40, 1024, 16, 65536, 65536, 0, 4 * 1024 * 1024, 0, 1590000,
     5001000, 256, 32, 0},
};

cudaDeviceProp properties_of(const DeviceSpec& d) {
  cudaDeviceProp p = common_properties();
  std::snprintf(p.name, sizeof p.name, "%s", d.name);
  p.major = d.major;
  p.minor = d.minor;
  p.totalGlobalMem = d.memory_mib * 1024 * 1024;
  p.multiProcessorCount = d.sms;
  p.maxThreadsPerMultiProcessor = d.threads_per_sm;
  p.maxBlocksPerMultiProcessor = d.blocks_per_sm;
  p.regsPerBlock = 65536;
  p.regsPerMultiprocessor = 65536;
  p.sharedMemPerMultiprocessor = d.smem_per_sm;
  p.sharedMemPerBlockOptin = d.smem_optin;
  p.reservedSharedMemPerBlock = d.smem_reserved;
  p.l2CacheSize = d.l2_bytes;
  p.persistingL2CacheMaxSize = d.persisting_l2_bytes;
  p.accessPolicyMaxWindowSize = d.persisting_l2_bytes > 0 ? 134213632 : 0;
  p.clockRate = d.clock_khz;
  p.memoryClockRate = d.memory_clock_khz;
  p.memoryBusWidth = d.bus_bits;
  p.singleToDoublePrecisionPerfRatio = d.fp32_to_fp64_ratio;
  p.clusterLaunch = d.cluster_launch;
  p.asyncEngineCount = 3;
  p.ECCEnabled = 1;
  return p;
}

cudaDeviceProp load() {
  const std::string& id = config().device;
  for (const DeviceSpec& d : kDevices) {
    if (id == d.id) return properties_of(d);
  }
  std::fprintf(stderr,
               "labkit-emu: unknown LABKIT_EMU_DEVICE=%s (h100-sxm, a100-sxm, t4);"
               " modelling h100-sxm\n",
               id.c_str());
  return properties_of(kDevices[0]);
}
}  // namespace

const cudaDeviceProp& device_properties() {
  static const cudaDeviceProp p = load();
  return p;
}
}  // namespace emu::detail
