// A batch's warm replay servers (grader/warm_replays/warm_replays.h, issue 16), where they can be
// had: a GPU batch with the kit's replay program, LABKIT_WARM_REPLAYS not 0, and a sandbox in which
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

// How many servers a batch keeps at most: LABKIT_WARM_REPLAYS's number (at most 64), else none.
// Off unless asked for: on an H100 they made lab 03's realistic class no faster (209.9 s against
// 200.6 s without, bench/results/throughput-h100-80gb-hbm3-2026-11-28-warm-replays.txt), and a
// context shared by several submissions' kernels keeps what the unload and the zeroing do not
// reach (the device-side malloc heap, local and shared memory left by a kernel), through which two
// colluding submissions of one batch could pass results (docs/THREAT_MODEL.md).
int WarmReplayServers();

}  // namespace labkit
