#include <cuda.h>
#include <cuda_runtime.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>

#include "harness_protocol.h"
#include "launch_counters.h"

namespace labkit {
namespace {

// Launches counted at most: ranges past it would be dropped, and a table with launches missing
// is no table (the technique check falls back).
constexpr std::size_t kMaxLaunches = 256;
// A session that finds the counters busy despite the lock (a profiler outside the kit) tries again.
constexpr int kBusyAttempts = 20;
constexpr std::chrono::milliseconds kBusyPause{250};

// libcupti is opened only by a counting run (the toolkit's copy, LABKIT_CUPTI_LIBRARY), so that no
// other harness process loads it.
struct Cupti {
  decltype(&cuptiGetResultString) result_string = nullptr;
  decltype(&cuptiProfilerInitialize) initialize = nullptr;
  decltype(&cuptiDeviceGetChipName) chip_name = nullptr;
  decltype(&cuptiProfilerHostInitialize) host_initialize = nullptr;
  decltype(&cuptiProfilerHostDeinitialize) host_deinitialize = nullptr;
  decltype(&cuptiProfilerHostConfigAddMetrics) add_metrics = nullptr;
  decltype(&cuptiProfilerHostGetConfigImageSize) config_size = nullptr;
  decltype(&cuptiProfilerHostGetConfigImage) config_image = nullptr;
  decltype(&cuptiProfilerHostEvaluateToGpuValues) evaluate = nullptr;
  decltype(&cuptiRangeProfilerEnable) enable = nullptr;
  decltype(&cuptiRangeProfilerDisable) disable = nullptr;
  decltype(&cuptiRangeProfilerGetCounterDataSize) counter_data_size = nullptr;
  decltype(&cuptiRangeProfilerCounterDataImageInitialize) counter_data_initialize = nullptr;
  decltype(&cuptiRangeProfilerSetConfig) set_config = nullptr;
  decltype(&cuptiRangeProfilerStart) start = nullptr;
  decltype(&cuptiRangeProfilerStop) stop = nullptr;
  decltype(&cuptiRangeProfilerDecodeData) decode = nullptr;
  decltype(&cuptiRangeProfilerGetCounterDataInfo) counter_data_info = nullptr;
  decltype(&cuCtxGetCurrent) current_context = nullptr;
};

template <typename Function>
bool Find(void* library, const char* name, Function& function) {
  function = reinterpret_cast<Function>(dlsym(library, name));
  return function != nullptr;
}

// The functions, or why they cannot be had.
std::string Load(Cupti& c) {
  void* cupti = dlopen(LABKIT_CUPTI_LIBRARY, RTLD_NOW | RTLD_LOCAL);
  if (cupti == nullptr) return std::string("cannot load CUPTI: ") + dlerror();
  void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (driver == nullptr) return std::string("cannot load the CUDA driver: ") + dlerror();
  const bool found =
      Find(cupti, "cuptiGetResultString", c.result_string) &&
      Find(cupti, "cuptiProfilerInitialize", c.initialize) &&
      Find(cupti, "cuptiDeviceGetChipName", c.chip_name) &&
      Find(cupti, "cuptiProfilerHostInitialize", c.host_initialize) &&
      Find(cupti, "cuptiProfilerHostDeinitialize", c.host_deinitialize) &&
      Find(cupti, "cuptiProfilerHostConfigAddMetrics", c.add_metrics) &&
      Find(cupti, "cuptiProfilerHostGetConfigImageSize", c.config_size) &&
      Find(cupti, "cuptiProfilerHostGetConfigImage", c.config_image) &&
      Find(cupti, "cuptiProfilerHostEvaluateToGpuValues", c.evaluate) &&
      Find(cupti, "cuptiRangeProfilerEnable", c.enable) &&
      Find(cupti, "cuptiRangeProfilerDisable", c.disable) &&
      Find(cupti, "cuptiRangeProfilerGetCounterDataSize", c.counter_data_size) &&
      Find(cupti, "cuptiRangeProfilerCounterDataImageInitialize", c.counter_data_initialize) &&
      Find(cupti, "cuptiRangeProfilerSetConfig", c.set_config) &&
      Find(cupti, "cuptiRangeProfilerStart", c.start) &&
      Find(cupti, "cuptiRangeProfilerStop", c.stop) &&
      Find(cupti, "cuptiRangeProfilerDecodeData", c.decode) &&
      Find(cupti, "cuptiRangeProfilerGetCounterDataInfo", c.counter_data_info) &&
      Find(driver, "cuCtxGetCurrent", c.current_context);
  return found ? "" : "CUPTI lacks the range profiler";
}

// Every metric of harness_protocol.h's table, as CUPTI takes them.
const char* const* MetricNames() { return gpu_metric::kAll; }
constexpr std::size_t kMetricCount = std::size(gpu_metric::kAll);

// Waits for the machine's counters (see launch_counters.h) and returns the lock's descriptor, or
// -1 where there is no shared folder to lock in (the sandbox then runs counting runs one at a time).
int TakeCounterLock() {
  const char* dir = std::getenv("TMPDIR");
  if (dir == nullptr || *dir == '\0') return -1;
  const std::string path = std::string(dir) + "/labkit-gpu-counters.lock";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd >= 0) flock(fd, LOCK_EX);
  return fd;
}

}  // namespace

struct LaunchCounting::Session {
  Cupti cupti;
  CUpti_Profiler_Host_Object* host = nullptr;
  CUpti_RangeProfiler_Object* profiler = nullptr;
  std::vector<uint8_t> config;
  std::vector<uint8_t> counters;
  bool started = false;
  int lock = -1;

  // "" when the call succeeded, else what failed and CUPTI's word for it.
  std::string Check(CUptiResult result, const char* what) const {
    if (result == CUPTI_SUCCESS) return "";
    const char* word = "unknown error";
    cupti.result_string(result, &word);
    return std::string(what) + ": " + word;
  }

  std::string Configure(int device) {
    CUpti_Profiler_Initialize_Params init = {CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    if (std::string e = Check(cupti.initialize(&init), "profiler initialisation"); !e.empty())
      return e;
    CUpti_Device_GetChipName_Params chip = {CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    chip.deviceIndex = static_cast<size_t>(device);
    if (std::string e = Check(cupti.chip_name(&chip), "chip name"); !e.empty()) return e;
    CUpti_Profiler_Host_Initialize_Params host_init = {
        CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    host_init.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    host_init.pChipName = chip.pChipName;
    if (std::string e = Check(cupti.host_initialize(&host_init), "metric set-up"); !e.empty())
      return e;
    host = host_init.pHostObject;
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    add.pHostObject = host;
    add.ppMetricNames = const_cast<const char**>(MetricNames());
    add.numMetrics = kMetricCount;
    if (std::string e = Check(cupti.add_metrics(&add), "metrics"); !e.empty()) return e;
    CUpti_Profiler_Host_GetConfigImageSize_Params size = {
        CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    size.pHostObject = host;
    if (std::string e = Check(cupti.config_size(&size), "configuration size"); !e.empty())
      return e;
    config.resize(size.configImageSize);
    CUpti_Profiler_Host_GetConfigImage_Params image = {
        CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    image.pHostObject = host;
    image.configImageSize = config.size();
    image.pConfigImage = config.data();
    return Check(cupti.config_image(&image), "configuration");
  }

  // Enables the profiler on the current context and starts it, one range per kernel launch.
  std::string Begin() {
    CUcontext context = nullptr;
    if (cupti.current_context(&context) != CUDA_SUCCESS || context == nullptr)
      return "no CUDA context to profile";
    CUpti_RangeProfiler_Enable_Params enable = {CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    enable.ctx = context;
    if (std::string e = Check(cupti.enable(&enable), "enabling the range profiler"); !e.empty())
      return e;
    profiler = enable.pRangeProfilerObject;
    CUpti_RangeProfiler_GetCounterDataSize_Params size = {
        CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    size.pRangeProfilerObject = profiler;
    size.pMetricNames = const_cast<const char**>(MetricNames());
    size.numMetrics = kMetricCount;
    size.maxNumOfRanges = kMaxLaunches;
    size.maxNumRangeTreeNodes = kMaxLaunches;
    if (std::string e = Check(cupti.counter_data_size(&size), "counter data size"); !e.empty())
      return e;
    counters.resize(size.counterDataSize);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params init = {
        CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    init.pRangeProfilerObject = profiler;
    init.counterDataSize = counters.size();
    init.pCounterData = counters.data();
    if (std::string e = Check(cupti.counter_data_initialize(&init), "counter data"); !e.empty())
      return e;
    CUpti_RangeProfiler_SetConfig_Params set = {CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    set.pRangeProfilerObject = profiler;
    set.configSize = config.size();
    set.pConfig = config.data();
    set.counterDataImageSize = counters.size();
    set.pCounterDataImage = counters.data();
    set.range = CUPTI_AutoRange;
    set.replayMode = CUPTI_KernelReplay;
    set.maxRangesPerPass = kMaxLaunches;
    set.numNestingLevels = 1;
    set.minNestingLevel = 1;
    set.passIndex = 0;
    set.targetNestingLevel = 1;
    if (std::string e = Check(cupti.set_config(&set), "profiler configuration"); !e.empty())
      return e;
    CUpti_RangeProfiler_Start_Params start = {CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    start.pRangeProfilerObject = profiler;
    CUptiResult started_result = CUPTI_SUCCESS;
    for (int attempt = 1; attempt <= kBusyAttempts; ++attempt) {
      started_result = cupti.start(&start);
      if (started_result != CUPTI_ERROR_HARDWARE_BUSY) break;
      std::this_thread::sleep_for(kBusyPause);
    }
    if (std::string e = Check(started_result, "starting the profiler"); !e.empty()) return e;
    started = true;
    return "";
  }

  // Stops, and the counts of each range (launch) in order, or why not.
  std::string End(std::vector<std::vector<double>>& values) {
    CUpti_RangeProfiler_Stop_Params stop = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = profiler;
    started = false;
    if (std::string e = Check(cupti.stop(&stop), "stopping the profiler"); !e.empty()) return e;
    CUpti_RangeProfiler_DecodeData_Params decode = {
        CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    decode.pRangeProfilerObject = profiler;
    if (std::string e = Check(cupti.decode(&decode), "decoding the counts"); !e.empty()) return e;
    if (decode.numOfRangeDropped > 0)
      return "more than " + std::to_string(kMaxLaunches) + " kernel launches to count";
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = counters.data();
    info.counterDataImageSize = counters.size();
    if (std::string e = Check(cupti.counter_data_info(&info), "reading the counts"); !e.empty())
      return e;
    for (std::size_t range = 0; range < info.numTotalRanges; ++range) {
      std::vector<double> row(kMetricCount);
      CUpti_Profiler_Host_EvaluateToGpuValues_Params evaluate = {
          CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
      evaluate.pHostObject = host;
      evaluate.pCounterDataImage = counters.data();
      evaluate.counterDataImageSize = counters.size();
      evaluate.rangeIndex = range;
      evaluate.ppMetricNames = const_cast<const char**>(MetricNames());
      evaluate.numMetrics = kMetricCount;
      evaluate.pMetricValues = row.data();
      if (std::string e = Check(cupti.evaluate(&evaluate), "evaluating the counts"); !e.empty())
        return e;
      values.push_back(std::move(row));
    }
    return "";
  }

  ~Session() {
    if (started) {
      CUpti_RangeProfiler_Stop_Params stop = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
      stop.pRangeProfilerObject = profiler;
      cupti.stop(&stop);
    }
    if (profiler != nullptr) {
      CUpti_RangeProfiler_Disable_Params disable = {
          CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
      disable.pRangeProfilerObject = profiler;
      cupti.disable(&disable);
    }
    if (host != nullptr) {
      CUpti_Profiler_Host_Deinitialize_Params done = {
          CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
      done.pHostObject = host;
      cupti.host_deinitialize(&done);
    }
    if (lock >= 0) close(lock);  // the counters are free for the next session
  }
};

LaunchCounting::LaunchCounting() : session_(std::make_unique<Session>()) {
  int device = 0;
  if (cudaFree(nullptr) != cudaSuccess || cudaGetDevice(&device) != cudaSuccess) {
    error_ = "no CUDA device to count on";
    return;
  }
  error_ = Load(session_->cupti);
  if (error_.empty()) error_ = session_->Configure(device);
  if (error_.empty()) session_->lock = TakeCounterLock();
  if (error_.empty()) error_ = session_->Begin();
}

LaunchCounting::~LaunchCounting() = default;

void LaunchCounting::WriteTable(const std::vector<LaunchRecord>& launched,
                                const std::string& path) {
  cudaDeviceSynchronize();
  std::vector<std::vector<double>> values;
  if (error_.empty() && session_) error_ = session_->End(values);
  if (error_.empty() && values.size() != launched.size())
    error_ = "the profiler counted " + std::to_string(values.size()) +
             " kernel launches where the harness saw " + std::to_string(launched.size());
  session_.reset();  // the profiler off and the lock given back before the table is written
  std::ofstream table(path, std::ios::trunc);
  if (!error_.empty()) {
    table << gpu_metric::kErrorMark << error_ << "\n";
    return;
  }
  table << "\"ID\",\"Kernel Name\",\"Block Size\",\"Metric Name\",\"Metric Value\"\n";
  for (std::size_t i = 0; i < launched.size(); ++i) {
    const LaunchRecord& l = launched[i];
    for (std::size_t m = 0; m < kMetricCount; ++m)
      table << '"' << i << "\",\"" << l.kernel << "\",\"(" << l.block[0] << ", " << l.block[1]
            << ", " << l.block[2] << ")\",\"" << gpu_metric::kAll[m] << "\",\""
            << static_cast<long long>(values[i][m] + 0.5) << "\"\n";
  }
}

}  // namespace labkit
