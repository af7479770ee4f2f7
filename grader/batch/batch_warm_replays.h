// A batch's warm replay servers (grader/process/warm_replays.h, issue 16), where they can be had:
// a GPU batch with the kit's replay program, LABKIT_WARM_REPLAYS not 0, and a sandbox in which
// one process may read and write every submission's work folder (bubblewrap, or labgrade's own
// user; not a user id per command, which could not write another's folder).
#pragma once

#include <memory>

#include "gpu_gate.h"
#include "lab_spec.h"
#include "manifest.h"
#include "sandbox.h"
#include "warm_replays.h"

namespace labkit {

struct BatchOptions;

class BatchWarmReplays {
 public:
  // The servers' program is linked into `out_dir`/warm_replay; servers run under `runner` (the
  // batch's), in a sandbox over `out_dir`/work, taking their GPU turns through `gate`.
  BatchWarmReplays(ProcessRunner& runner, GpuGate& gate, const Manifest& manifest,
                   const LabSpec& spec, const BatchOptions& options);
  ~BatchWarmReplays();  // says what the servers did, when they served anything
  // Null where the batch has none.
  WarmReplayPool* pool() { return pool_.get(); }

 private:
  std::unique_ptr<SandboxedProcessRunner> sandbox_;
  std::unique_ptr<GpuGateRunner> on_a_gpu_;
  std::unique_ptr<WarmReplayPool> pool_;
};

// How many servers a batch of `jobs` keeps at most: LABKIT_WARM_REPLAYS where set (0: none), else
// half the jobs, at least 2 and at most 8, per GPU.
int WarmReplayServers(int jobs, std::size_t gpus);

}  // namespace labkit
