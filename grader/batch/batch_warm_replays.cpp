#include "batch_warm_replays.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "batch.h"
#include "submission_build.h"
#include "warm_replay.h"

namespace labkit {
namespace fs = std::filesystem;

int WarmReplayServers() {
  const char* asked = std::getenv("LABKIT_WARM_REPLAYS");
  if (asked == nullptr || *asked == '\0') return 0;
  char* end = nullptr;
  const long n = std::strtol(asked, &end, 10);
  return end != nullptr && *end == '\0' && n > 0 ? static_cast<int>(std::min(n, 64L)) : 0;
}

BatchWarmReplays::BatchWarmReplays(ProcessRunner& runner, GpuGate& gate, const Manifest& manifest,
                                   const LabSpec& spec, const BatchOptions& options) {
  const int servers = WarmReplayServers();
  if (options.backend != Backend::kGpu || manifest.gpu_replay_libs.empty() || servers == 0) return;
  const std::string home = options.out_dir + "/warm_replay", work = options.out_dir + "/work";
  std::error_code ec;
  fs::create_directories(home, ec);
  fs::create_directories(work, ec);
  // The kit's own link, of the kit's archives only: no student object is in it.
  const std::string program = SubmissionBuilder(runner, manifest, spec).KitReplayProgram(home);
  if (ec || program.empty()) return;
  SandboxPolicy policy =
      GradingSandboxPolicy(manifest, spec.id, "", work, {options.out_dir + "/results"});
  policy.read_only.push_back(home);
  sandbox_ = std::make_unique<SandboxedProcessRunner>(runner, policy);
  if (sandbox_->separate_users()) return;
  on_a_gpu_ = std::make_unique<GpuGateRunner>(gate, *sandbox_);
  Command server;
  server.argv = {program, warm_replay::kServeOption};
  server.cwd = work;
  server.gpu = GpuUse::kTurns;
  server.timeout_seconds = 6 * 3600;  // a backstop: a server ends when the batch closes its socket
  server.output_limit = 64 * 1024;
  server.env["CUDA_DEVICE_MAX_CONNECTIONS"] = "1";  // as every replay's (harness_request.cpp)
  pool_ = std::make_unique<WarmReplayPool>(*on_a_gpu_, server, servers,
                                           fs::path(program).filename().string());
}

BatchWarmReplays::~BatchWarmReplays() {
  if (!pool_) return;
  const WarmReplayPool::Counts n = pool_->counts();
  pool_.reset();  // the servers end before the runners they run under
  if (n.served + n.failed > 0)
    std::fprintf(stderr,
                 "labgrade: warm replay processes: %d started, %d replays served, %d run in a "
                 "process of their own (none free), %d again there after a server failed\n",
                 n.started, n.served, n.declined, n.failed);
}

}  // namespace labkit
