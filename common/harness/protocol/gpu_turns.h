// GPU turns: how the kit's replay program takes the GPU in a batch only while it uses it.
//
// A batch's GPU gate (grader/process/gpu_gate.h) lets many correctness runs share a GPU and gives a
// timed run the GPU to itself. A program with student host code in it must hold its turn for its
// whole life: its static initialisers could launch work before the kit's code runs. The kit's
// replay program holds none of the student's host code (docs/THREAT_MODEL.md), so it may create
// its CUDA context, read its files and end without a turn, and hold the GPU alone only for the
// timed repetitions. labgrade hands such a program one end of a socket pair as file descriptor
// kGpuTurnDescriptor and names it in kGpuTurnsVariable; the program writes one byte per change of
// turn and, for a turn it asked for, waits for kTurnGranted. Closing the socket (the program's
// end) gives back whatever it held.
#pragma once

namespace labkit::gpu_turns {

inline constexpr const char kGpuTurnsVariable[] = "LABKIT_GPU_TURNS";
inline constexpr int kGpuTurnDescriptor = 3;

// Bytes from the program to labgrade.
inline constexpr char kAskShared = 's';     // run beside other correctness runs
inline constexpr char kAskExclusive = 'x';  // the GPU alone (the timed repetitions)
inline constexpr char kGiveBack = 'r';      // no GPU work until the next ask
// The byte back, once the asked-for turn is held.
inline constexpr char kTurnGranted = 'g';

}  // namespace labkit::gpu_turns
