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
#include <functional>
#include <iterator>
#include <thread>

#include "harness_protocol.h"
#include "launch_counters.h"

namespace labkit {
namespace {

// A session that finds the counters busy despite the lock (a profiler outside the kit) tries again.
constexpr int kBusyAttempts = 8;
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

// The machine's counters, held while it lives (see launch_counters.h). Not held where labgrade
// made no lock file (a run by hand), nor after kLockWait: a launch holds the lock for a fraction
// of a second, so a longer wait means a process that keeps it (a student's static initialiser
// can take it too), and the count goes ahead without it, with CountOne's tries against a busy GPU.
class CounterLock {
 public:
  CounterLock() {
    const char* dir = std::getenv(gpu_metric::kLockDirVariable);
    if (dir == nullptr || *dir == '\0') return;
    const std::string path = std::string(dir) + "/" + gpu_metric::kLockFile;
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    const auto give_up = std::chrono::steady_clock::now() + kLockWait;
    while (fd_ >= 0 && flock(fd_, LOCK_EX | LOCK_NB) != 0) {
      if (std::chrono::steady_clock::now() > give_up) {
        close(fd_);
        fd_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  }
  ~CounterLock() {
    if (fd_ >= 0) close(fd_);
  }
  CounterLock(const CounterLock&) = delete;
  CounterLock& operator=(const CounterLock&) = delete;

 private:
  static constexpr std::chrono::seconds kLockWait{15};
  int fd_ = -1;
};

// The kind of a failed CUPTI call, for the table's error line: the machine's own refusals (no
// permission to read the counters, a GPU or a setting CUPTI cannot count on), which no kernel can
// cause and every run here would meet alike, or this run's trouble (the counters busy, a failure
// while a kernel was counted).
const char* FailureKind(CUptiResult result) {
  switch (result) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
      return gpu_metric::kCannotCountHere;
    default:
      return gpu_metric::kCountingFailed;
  }
}

// The counting in progress, for the launch wrap (CountedLaunch); one at a time.
LaunchCounting* g_counting = nullptr;

}  // namespace

struct LaunchCounting::Session {
  Cupti cupti;
  CUpti_Profiler_Host_Object* host = nullptr;
  CUpti_RangeProfiler_Object* profiler = nullptr;
  std::vector<uint8_t> config;
  std::vector<uint8_t> counters;
  std::vector<const char*> metrics;          // harness_protocol.h's, those this GPU has
  std::vector<LaunchRecord> launches;        // each launch counted, in order
  std::vector<std::vector<double>> values;  // its counts

  CUptiResult last_failure = CUPTI_SUCCESS;  // the result Check last refused

  // "" when the call succeeded, else what failed and CUPTI's word for it.
  std::string Check(CUptiResult result, const char* what) {
    if (result == CUPTI_SUCCESS) return "";
    last_failure = result;
    const char* word = "unknown error";
    cupti.result_string(result, &word);
    return std::string(what) + ": " + word;
  }

  std::string Configure(int device) {
    int major = 0;
    if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess)
      return "cannot read the GPU's compute capability";
    metrics = gpu_metric::MetricsFor(major);
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
    add.ppMetricNames = metrics.data();
    add.numMetrics = metrics.size();
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

  // Enables the profiler on the current context; Disable gives the GPU's counters back. Another
  // process cannot start a session between the two (CUPTI_ERROR_HARDWARE_BUSY), so both happen
  // around each launch, with the lock held (H100, 2026-11-26: a process that stayed enabled made
  // every other counting run wait out its retries).
  std::string Enable() {
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
    size.pMetricNames = metrics.data();
    size.numMetrics = metrics.size();
    size.maxNumOfRanges = 1;
    size.maxNumRangeTreeNodes = 1;
    if (std::string e = Check(cupti.counter_data_size(&size), "counter data size"); !e.empty())
      return e;
    counters.resize(size.counterDataSize);
    return "";
  }

  void Disable() {
    if (profiler == nullptr) return;
    CUpti_RangeProfiler_Disable_Params disable = {CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    disable.pRangeProfilerObject = profiler;
    cupti.disable(&disable);
    profiler = nullptr;
  }

  // One launch in a profiling session of its own, the machine's counters held only that long:
  // `launch` runs the kernel, whose counts are appended to `values` (or why not, as the result).
  // A session of the whole replay held the counters through its uploads and checks too, and made
  // a batch's counting runs queue behind each other (H100, 2026-11-26: 14.3 submissions a minute
  // against 18.2 with Nsight Compute).
  std::string CountOne(const std::function<void()>& launch,
                       std::vector<std::vector<double>>& values) {
    const CounterLock held;
    struct Enabled {
      Session& session;
      ~Enabled() { session.Disable(); }
    } enabled{*this};
    if (std::string e = Enable(); !e.empty()) return e;
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
    set.maxRangesPerPass = 1;
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
    launch();
    cudaDeviceSynchronize();
    CUpti_RangeProfiler_Stop_Params stop = {CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = profiler;
    if (std::string e = Check(cupti.stop(&stop), "stopping the profiler"); !e.empty()) return e;
    CUpti_RangeProfiler_DecodeData_Params decode = {
        CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    decode.pRangeProfilerObject = profiler;
    if (std::string e = Check(cupti.decode(&decode), "decoding the counts"); !e.empty()) return e;
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
        CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    info.pCounterDataImage = counters.data();
    info.counterDataImageSize = counters.size();
    if (std::string e = Check(cupti.counter_data_info(&info), "reading the counts"); !e.empty())
      return e;
    if (info.numTotalRanges != 1 || decode.numOfRangeDropped > 0)
      return "a launch made " + std::to_string(info.numTotalRanges) + " profiler ranges, not one";
    std::vector<double> row(metrics.size());
    CUpti_Profiler_Host_EvaluateToGpuValues_Params evaluate = {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    evaluate.pHostObject = host;
    evaluate.pCounterDataImage = counters.data();
    evaluate.counterDataImageSize = counters.size();
    evaluate.rangeIndex = 0;
    evaluate.ppMetricNames = metrics.data();
    evaluate.numMetrics = metrics.size();
    evaluate.pMetricValues = row.data();
    if (std::string e = Check(cupti.evaluate(&evaluate), "evaluating the counts"); !e.empty())
      return e;
    values.push_back(std::move(row));
    return "";
  }

  ~Session() {
    Disable();
    if (host != nullptr) {
      CUpti_Profiler_Host_Deinitialize_Params done = {
          CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
      done.pHostObject = host;
      cupti.host_deinitialize(&done);
    }
  }
};

LaunchCounting::LaunchCounting() : session_(std::make_unique<Session>()) {
  int device = 0;
  if (cudaFree(nullptr) != cudaSuccess || cudaGetDevice(&device) != cudaSuccess) {
    error_ = "no CUDA device to count on";
    return;
  }
  error_ = Load(session_->cupti);
  if (!error_.empty()) {
    failure_kind_ = gpu_metric::kCannotCountHere;  // no CUPTI on this machine
    return;
  }
  error_ = session_->Configure(device);
  if (error_.empty())
    g_counting = this;
  else
    failure_kind_ = FailureKind(session_->last_failure);
}

LaunchCounting::~LaunchCounting() {
  if (g_counting == this) g_counting = nullptr;
}

void LaunchCounting::Count(const LaunchRecord& noted, const std::function<void()>& launch) {
  if (!error_.empty() || session_ == nullptr) return launch();
  session_->launches.push_back(noted);
  bool ran = false;
  error_ = session_->CountOne(
      [&] {
        ran = true;
        launch();
      },
      session_->values);
  // The permission check comes when a session starts, at the first launch counted.
  if (!error_.empty()) failure_kind_ = FailureKind(session_->last_failure);
  if (!ran) launch();  // the count failed before the launch: the case still runs
}

bool CountedLaunch(const LaunchRecord& noted, const std::function<void()>& launch) {
  if (g_counting == nullptr || !g_counting->armed_) return false;
  g_counting->Count(noted, launch);
  return true;
}

void LaunchCounting::WriteTable(const std::string& path) {
  if (g_counting == this) g_counting = nullptr;
  std::vector<LaunchRecord> launched;
  std::vector<std::vector<double>> values;
  std::vector<const char*> metrics;
  if (session_) {
    launched = std::move(session_->launches);
    values = std::move(session_->values);
    metrics = std::move(session_->metrics);
  }
  session_.reset();  // the profiler off before the table is written
  std::ofstream table(path, std::ios::trunc);
  if (!error_.empty()) {
    table << gpu_metric::kErrorMark << failure_kind_ << ": " << error_ << "\n";
    return;
  }
  table << "\"ID\",\"Kernel Name\",\"Block Size\",\"Metric Name\",\"Metric Value\"\n";
  for (std::size_t i = 0; i < launched.size(); ++i) {
    const LaunchRecord& l = launched[i];
    for (std::size_t m = 0; m < metrics.size(); ++m)
      table << '"' << i << "\",\"" << l.kernel << "\",\"(" << l.block[0] << ", " << l.block[1]
            << ", " << l.block[2] << ")\",\"" << metrics[m] << "\",\""
            << static_cast<long long>(values[i][m] + 0.5) << "\"\n";
  }
}

}  // namespace labkit
