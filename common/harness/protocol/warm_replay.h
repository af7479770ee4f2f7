// Warm replay processes (docs/DESIGN.md, "Warm replay processes"): in a batch on a GPU, the kit's
// replay program can stay alive and run one replay after another, so that a replay no longer
// pays for a process and a CUDA context of its own (about 1.2 s among sixteen jobs on an H100).
// It holds no student host code; each request's device code is loaded for that request and
// unloaded after it, and every allocation is zeroed before it is freed, so that nothing one
// submission's kernels leave in device memory they allocated reaches the next. The context keeps
// more than that (the device heap, local and shared memory): docs/THREAT_MODEL.md says why the
// servers are off unless a batch asks for them.
//
// labgrade starts `<kit replay program> --serve` with the turns' socket as descriptor 3
// (gpu_turns.h) and one end of a socket pair as descriptor kServerDescriptor. Both sides write one
// JSON object per line on it:
//   server, once its context exists:  {"ready": true, "pageable_memory_access": 0}
//   labgrade, a request:               {"request": path, "response": path, "output": path,
//                                       "seconds": limit, "env": {name: value}}
//   server, when the request is done:  {"exit": status, "reusable": true}
// A request is what `--replay REQUEST RESPONSE` would do in a process of its own, with the
// process's stdout and stderr going to "output" (a new file) meanwhile. "reusable": false (a sticky
// CUDA error, or the request count reached) and the server ends after its reply. A request still
// running after "seconds" ends the whole process, with no reply: labgrade then runs that request
// in a process of its own, which gives its verdict.
#pragma once

namespace labkit::warm_replay {

inline constexpr const char kServeOption[] = "--serve";
inline constexpr int kServerDescriptor = 4;

// The environment a request may set, as its own command line's would; every other variable of a
// replay's command must equal the server's (labgrade serves no request that differs otherwise).
inline constexpr const char* kRequestEnvironment[] = {"LABKIT_DEVICE_MEMORY_LIMIT",
                                                      "LABKIT_EMU_REPORT"};

// A server retires after this many requests (what a long life could accumulate in the driver, a
// library's cache say, stays bounded), and labgrade starts another when one is needed.
inline constexpr int kMaxRequestsPerServer = 200;

// The status a server ends with when a request overran its time (no reply is written).
inline constexpr int kRequestOverranExitCode = 90;

}  // namespace labkit::warm_replay
