// Whether one CUDA context serves a batch's replays faster than a context per process (issue 16;
// bench/results/throughput-h100-80gb-hbm3-2026-11-27-limit.txt). A "unit" stands for a small
// replay: device buffers for a 512 x 512 x 512 product allocated, A and B copied in, a
// one-thread-per-element kernel launched, C copied out, the buffers freed. Three ways of doing
// units with W workers for S seconds, each printing the units done per second:
//   spawn W S      each worker starts a process per unit (a context made and ended per unit):
//                  how labgrade runs replays now
//   processes W S  W processes, each with a context of its own, doing units one after another:
//                  warm processes, time-sliced by the GPU
//   threads W S    one process, one context, W threads with a stream each: a warm replay
//                  service whose requests run side by side
//   unit           one unit, then exit (what `spawn` starts)
// bench/gpu_session.sh's `context_sharing` stage runs all three with W = 16, and threads with
// W = 1.
#include <cuda_runtime.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace {

constexpr int kSide = 512;

__global__ void rows_product(const float* A, const float* B, float* C, int n) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y,
            col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= n || col >= n) return;
  float sum = 0;
  for (int i = 0; i < n; ++i) sum += A[row * n + i] * B[i * n + col];
  C[row * n + col] = sum;
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool Ok(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return true;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorName(e));
  return false;
}

// One unit on `stream`; false when a CUDA call failed (said on stderr).
bool Unit(cudaStream_t stream, const std::vector<float>& host_in, std::vector<float>& host_out) {
  const std::size_t bytes = sizeof(float) * kSide * kSide;
  float *A = nullptr, *B = nullptr, *C = nullptr;
  for (float** p : {&A, &B, &C})
    if (!Ok(cudaMalloc(p, bytes), "cudaMalloc")) return false;
  const bool done =
      Ok(cudaMemcpyAsync(A, host_in.data(), bytes, cudaMemcpyHostToDevice, stream), "copy A") &&
      Ok(cudaMemcpyAsync(B, host_in.data(), bytes, cudaMemcpyHostToDevice, stream), "copy B") &&
      [&] {
        rows_product<<<dim3(kSide / 16, kSide / 16), dim3(16, 16), 0, stream>>>(A, B, C, kSide);
        return Ok(cudaGetLastError(), "launch");
      }() &&
      Ok(cudaMemcpyAsync(host_out.data(), C, bytes, cudaMemcpyDeviceToHost, stream), "copy C") &&
      Ok(cudaStreamSynchronize(stream), "synchronise");
  for (float* p : {A, B, C}) cudaFree(p);
  return done;
}

// Units one after another on `stream` until `until`; the count, or -1 on a failure.
long UnitsUntil(double until, cudaStream_t stream) {
  std::vector<float> in(kSide * kSide, 0.5f), out(kSide * kSide);
  long units = 0;
  while (Now() < until) {
    if (!Unit(stream, in, out)) return -1;
    ++units;
  }
  return units;
}

void Report(const char* mode, int workers, long units, double seconds) {
  std::printf("%-9s %2d workers: %8.1f units/s (%ld units in %.1f s)\n", mode, workers,
              units / seconds, units, seconds);
}

// `workers` threads each running `worker` (units done by `until`, or -1 on a failure; `failed`
// says another thread failed), then the report; 1 when any failed.
int OnThreads(const char* mode, int workers, double seconds,
              const std::function<long(double until, const std::atomic<bool>& failed)>& worker) {
  const double start = Now();
  std::atomic<long> units{0};
  std::atomic<bool> failed{false};
  std::vector<std::thread> pool;
  for (int w = 0; w < workers; ++w)
    pool.emplace_back([&] {
      const long done = worker(start + seconds, failed);
      if (done < 0) failed = true;
      units += done < 0 ? 0 : done;
    });
  for (std::thread& t : pool) t.join();
  Report(mode, workers, units, Now() - start);
  return failed ? 1 : 0;
}

int Threads(int workers, double seconds) {
  if (!Ok(cudaFree(nullptr), "context")) return 1;
  return OnThreads("threads", workers, seconds, [](double until, const std::atomic<bool>&) {
    cudaStream_t stream = nullptr;
    if (!Ok(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "stream")) return -1L;
    const long done = UnitsUntil(until, stream);
    cudaStreamDestroy(stream);
    return done;
  });
}

int Processes(int workers, double seconds) {
  int counts[2];
  if (pipe(counts) != 0) return 1;
  const double start = Now();
  for (int w = 0; w < workers; ++w)
    if (fork() == 0) {  // before any CUDA call in this process: each child makes its own context
      const long done =
          Ok(cudaFree(nullptr), "context") ? UnitsUntil(start + seconds, nullptr) : -1;
      (void)!write(counts[1], &done, sizeof done);
      _exit(done < 0 ? 1 : 0);
    }
  close(counts[1]);
  long units = 0, done = 0;
  bool failed = false;
  while (read(counts[0], &done, sizeof done) == sizeof done) {
    failed = failed || done < 0;
    units += done < 0 ? 0 : done;
  }
  while (wait(nullptr) > 0) {
  }
  Report("processes", workers, units, Now() - start);
  return failed ? 1 : 0;
}

int Spawn(int workers, double seconds) {
  return OnThreads("spawn", workers, seconds, [](double until, const std::atomic<bool>& failed) {
    char self[] = "/proc/self/exe", unit[] = "unit";
    char* argv[] = {self, unit, nullptr};
    long units = 0;
    while (Now() < until && !failed) {
      pid_t pid = 0;
      int status = 0;
      if (posix_spawn(&pid, self, nullptr, nullptr, argv, environ) != 0 ||
          waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return -1L;
      ++units;
    }
    return units;
  });
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "unit" && argc == 2) {
    std::vector<float> in(kSide * kSide, 0.5f), out(kSide * kSide);
    return Unit(nullptr, in, out) ? 0 : 1;
  }
  const int workers = argc == 4 ? std::atoi(argv[2]) : 0;
  const double seconds = argc == 4 ? std::atof(argv[3]) : 0;
  if (workers < 1 || seconds <= 0 ||
      (mode != "spawn" && mode != "processes" && mode != "threads")) {
    std::fprintf(stderr, "usage: %s spawn|processes|threads WORKERS SECONDS | %s unit\n", argv[0],
                 argv[0]);
    return 2;
  }
  if (mode == "threads") return Threads(workers, seconds);
  if (mode == "processes") return Processes(workers, seconds);
  return Spawn(workers, seconds);
}
