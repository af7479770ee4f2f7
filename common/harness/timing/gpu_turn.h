// The harness's side of GPU turns (gpu_turns.h): in a batch, the kit's replay program asks
// labgrade for the GPU while it uses it, shared for correctness work and alone for the timed
// repetitions, and gives it back before its context ends. Outside a batch's gate (no
// LABKIT_GPU_TURNS), and in every program with student host code in it, these do nothing: such a
// program holds its turn for its whole life.
#pragma once

namespace labkit {

enum class GpuTurn { kNone, kShared, kExclusive };

// One end of the turns' socket; descriptor -1: no gate, and every turn is a no-op.
class GpuTurnClient {
 public:
  explicit GpuTurnClient(int fd) : fd_(fd) {}
  // Moves to `turn`, waiting for labgrade to grant a turn asked for. Throws std::runtime_error
  // when labgrade's end of the socket is gone (a fault of the grader's).
  void Take(GpuTurn turn);
  GpuTurn held() const { return held_; }

 private:
  int fd_;
  GpuTurn held_ = GpuTurn::kNone;
};

// This process's turns: through the descriptor LABKIT_GPU_TURNS names, else none.
GpuTurnClient& ProcessGpuTurns();
inline void TakeGpuTurn(GpuTurn turn) { ProcessGpuTurns().Take(turn); }

// Holds `turn` for a scope; the turn held before it is taken back at the scope's end.
class ScopedGpuTurn {
 public:
  explicit ScopedGpuTurn(GpuTurn turn);
  ~ScopedGpuTurn();
  ScopedGpuTurn(const ScopedGpuTurn&) = delete;
  ScopedGpuTurn& operator=(const ScopedGpuTurn&) = delete;

 private:
  GpuTurn previous_;
};

}  // namespace labkit
