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

void set_name(cudaDeviceProp& p, const char* name) {
  std::snprintf(p.name, sizeof p.name, "%s", name);
}

cudaDeviceProp h100_sxm() {
  cudaDeviceProp p = common_properties();
  set_name(p, "NVIDIA H100 80GB HBM3");
  p.major = 9;
  p.minor = 0;
  p.totalGlobalMem = 81559ull * 1024 * 1024;
  p.multiProcessorCount = 132;
  p.maxThreadsPerMultiProcessor = 2048;
  p.maxBlocksPerMultiProcessor = 32;
  p.regsPerBlock = 65536;
  p.regsPerMultiprocessor = 65536;
  p.sharedMemPerMultiprocessor = 233472;  // 228 KiB
  p.sharedMemPerBlockOptin = 232448;      // 227 KiB
  p.reservedSharedMemPerBlock = 1024;
  p.l2CacheSize = 50 * 1024 * 1024;
  p.persistingL2CacheMaxSize = 82 * 1024 * 1024 / 2;
  p.accessPolicyMaxWindowSize = 134213632;
  p.clockRate = 1980000;  // kHz
  p.memoryClockRate = 2619000;
  p.memoryBusWidth = 5120;
  p.asyncEngineCount = 3;
  p.ECCEnabled = 1;
  p.clusterLaunch = 1;
  p.singleToDoublePrecisionPerfRatio = 2;
  return p;
}

cudaDeviceProp a100_sxm() {
  cudaDeviceProp p = common_properties();
  set_name(p, "NVIDIA A100-SXM4-80GB");
  p.major = 8;
  p.minor = 0;
  p.totalGlobalMem = 81920ull * 1024 * 1024;
  p.multiProcessorCount = 108;
  p.maxThreadsPerMultiProcessor = 2048;
  p.maxBlocksPerMultiProcessor = 32;
  p.regsPerBlock = 65536;
  p.regsPerMultiprocessor = 65536;
  p.sharedMemPerMultiprocessor = 167936;  // 164 KiB
  p.sharedMemPerBlockOptin = 166912;      // 163 KiB
  p.reservedSharedMemPerBlock = 1024;
  p.l2CacheSize = 40 * 1024 * 1024;
  p.persistingL2CacheMaxSize = 30 * 1024 * 1024;
  p.accessPolicyMaxWindowSize = 134213632;
  p.clockRate = 1410000;
  p.memoryClockRate = 1593000;
  p.memoryBusWidth = 5120;
  p.asyncEngineCount = 3;
  p.ECCEnabled = 1;
  p.singleToDoublePrecisionPerfRatio = 2;
  return p;
}

cudaDeviceProp t4() {
  cudaDeviceProp p = common_properties();
  set_name(p, "Tesla T4");
  p.major = 7;
  p.minor = 5;
  p.totalGlobalMem = 15360ull * 1024 * 1024;
  p.multiProcessorCount = 40;
  p.maxThreadsPerMultiProcessor = 1024;
  p.maxBlocksPerMultiProcessor = 16;
  p.regsPerBlock = 65536;
  p.regsPerMultiprocessor = 65536;
  p.sharedMemPerMultiprocessor = 65536;
  p.sharedMemPerBlockOptin = 65536;
  p.reservedSharedMemPerBlock = 0;
  p.l2CacheSize = 4 * 1024 * 1024;
  p.clockRate = 1590000;
  p.memoryClockRate = 5001000;
  p.memoryBusWidth = 256;
  p.asyncEngineCount = 3;
  p.ECCEnabled = 1;
  p.singleToDoublePrecisionPerfRatio = 32;
  return p;
}

cudaDeviceProp load() {
  const std::string& name = config().device;
  if (name == "a100-sxm") return a100_sxm();
  if (name == "t4") return t4();
  if (name != "h100-sxm") {
    std::fprintf(stderr, "labkit-emu: unknown LABKIT_EMU_DEVICE=%s (h100-sxm, a100-sxm, t4);"
                 " modelling h100-sxm\n", name.c_str());
  }
  return h100_sxm();
}
}  // namespace

const cudaDeviceProp& device_properties() {
  static const cudaDeviceProp p = load();
  return p;
}
}  // namespace emu::detail
