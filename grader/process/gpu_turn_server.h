// labgrade's side of GPU turns (gpu_turns.h): one program's requests for a shared or an exclusive
// turn at one GPU, served through the batch's GpuGate from a thread of their own while the program
// runs. The program gets one end of a socket pair; whatever turn it still holds when that end
// closes (the program ended, or was killed) is given back.
#pragma once

#include <cstddef>
#include <string>
#include <thread>

#include "gpu_gate.h"

namespace labkit {

class GpuTurnServer {
 public:
  // `label` names the program in the command trace's waits (command_trace.h).
  GpuTurnServer(GpuGate& gate, std::size_t gpu, std::string label);
  ~GpuTurnServer();  // Finish()
  GpuTurnServer(const GpuTurnServer&) = delete;
  GpuTurnServer& operator=(const GpuTurnServer&) = delete;

  bool ok() const { return program_end_ >= 0; }
  const std::string& error() const { return error_; }
  // The descriptor to hand the program (Command::passed_descriptors); -1 when !ok().
  int program_end() const { return program_end_; }
  // Once the program has ended: closes labgrade's copy of the program's end, waits for the
  // serving thread to see it close, and gives back any turn still held.
  void Finish();

 private:
  void Serve();
  // Moves to the turn `asked` (gpu_turns.h's bytes; kGiveBack: none), tracing any wait.
  void Change(char asked);

  GpuGate& gate_;
  const std::size_t gpu_;
  const std::string label_;
  int own_end_ = -1;
  int program_end_ = -1;
  std::string error_;
  std::thread thread_;
  char held_ = 0;  // kAskShared, kAskExclusive or 0
  GpuGate::Hold hold_;
  double exclusive_since_ = 0;  // TraceClock() when the exclusive turn was granted
};

}  // namespace labkit
