// What the emu rewriter turns CUDA syntax into (docs/DESIGN.md, "CPU backend (emu) contract"):
//   k<<<g, b, smem, s>>>(args...)        -> ::emu::launch(k, g, b, smem, s, args...)
//   __shared__ T name[N];                -> auto& name = ::emu::block_shared<T[N], ID>();
//   extern __shared__ T name[];          -> T* name = ::emu::dynamic_shared<T>();
//   (at namespace scope: a macro of the name, or an object of it, dynamic_shared_name below)
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

#include "labkit_emu/runtime_types.h"
#include "labkit_emu/vector_types.h"

namespace emu {
namespace detail {

// A pointer-typed kernel argument, checked against the device allocations before the launch.
struct PointerArgument {
  int index;
  const void* value;
};

// One launch with the kernel and its argument types erased, so that the scheduler is ordinary
// library code: run_thread(closure) runs the kernel body for the current CUDA thread.
struct LaunchRequest {
  const void* kernel;
  dim3 grid;
  dim3 block;
  size_t dynamic_smem;
  cudaStream_t stream;
  void (*run_thread)(const void* closure);
  const void* closure;
  const PointerArgument* pointers;
  int pointer_count;
  // The closure's size: a record run keeps its bytes so that a replay can run the same launch
  // (common/harness/record/replay_recorder.h).
  size_t closure_bytes;
};
void launch(const LaunchRequest& request);
// The error the latest launch ended with (cudaSuccess when it ran), whatever an earlier call left
// in the last-error state: what cudaLaunchKernel returns.
cudaError_t last_launch_status();
// Fills a block's shared memory with 0xFF before its first use (not counted as a CUDA thread's
// write by ThreadSanitizer).
void poison_shared(void* bytes, size_t size);
// The running block's storage for the __shared__ array `key` names (block_shared), poisoned
// before the block's first use.
void* static_shared(const void* key, size_t size, size_t alignment);

// Per-OS-thread state the shared-memory accessors read: the generation of the running block
// (incremented for every block) and the launch's dynamic shared memory.
extern __thread uint64_t block_generation;
extern __thread unsigned char* dynamic_smem_base;

// Everything defined in this header has internal linkage (as CUDA's own header templates are
// `static`): lab objects then define no emu:: symbols of their own, and each translation unit
// has its own block_shared storage, so equal IDs in two files never share memory.
namespace {
template <class... P>
struct Closure {
  void (*kernel)(P...);
  std::tuple<std::decay_t<P>...> params;

  // A real call converts each argument to its parameter type; so does calling this.
  static std::tuple<std::decay_t<P>...> convert(std::decay_t<P>... p) { return {p...}; }
  static void run(const void* self) {
    auto* c = static_cast<const Closure*>(self);
    std::apply(c->kernel, c->params);  // copies: each CUDA thread gets its own parameters
  }
};

template <class... P, class... Args>
void launch_function(void (*kernel)(P...), dim3 grid, dim3 block, size_t smem, cudaStream_t stream,
                     Args&&... args) {
  static_assert(sizeof...(P) == sizeof...(Args), "kernel launched with the wrong argument count");
  using C = Closure<P...>;
  // Built in cleared storage: a record run keeps the closure's bytes and takes any word in them
  // that points into the program for an argument to relocate, so padding (8 bytes of it after the
  // kernel's pointer when it takes no arguments) must hold zeros, not what the stack held there.
  alignas(C) unsigned char storage[sizeof(C)] = {};
  C& closure = *new (storage) C{kernel, C::convert(std::forward<Args>(args)...)};

  PointerArgument pointers[sizeof...(P) + 1];
  int count = 0;
  std::apply(
      [&](const auto&... p) {
        int index = 0;
        auto note = [&](const auto& value) {
          if constexpr (std::is_pointer_v<std::decay_t<decltype(value)>>) {
            pointers[count++] = PointerArgument{index, static_cast<const void*>(value)};
          }
          ++index;
        };
        (note(p), ...);
      },
      closure.params);
  launch(LaunchRequest{reinterpret_cast<const void*>(kernel), grid, block, smem, stream, &C::run,
                       &closure, pointers, count, sizeof(C)});
  closure.~C();
}

}  // namespace
}  // namespace detail

namespace {
template <class K, class... Args>
void launch(K kernel, dim3 grid, dim3 block, size_t smem, cudaStream_t stream, Args&&... args) {
  detail::launch_function(kernel, grid, block, smem, stream, std::forward<Args>(args)...);
}

// One block runs at a time on an OS thread, so the OS thread's storage for an array is the
// block's; the runtime keeps it (static_shared) and poisons it with 0xFF (NaN for floats) the first
// time each block touches it. It is not a thread_local of this file's: a lab object then defines
// no thread-local variable at all, and labgrade refuses one the student writes (a kernel's reads
// of a named variable at offsets the compiler knows are not counted, and thread-local storage is
// the one place the CPU backend cannot watch them: THREAT_MODEL.md).
template <class T, int Id>
T& block_shared() {
  // One address per array of each file: a distinct object per instantiation (writable, so that
  // not even -fmerge-all-constants could fold two into one); only its address is used.
  static char key;
  return *static_cast<T*>(detail::static_shared(&key, sizeof(T), alignof(T)));
}

// The launch's dynamic shared memory (poisoned before each block). It ends at a guard page, so an
// access past the launch's byte count faults and is reported.
template <class T>
T* dynamic_shared() {
  return reinterpret_cast<T*>(detail::dynamic_smem_base);
}

// A __shared__ array declared at namespace scope is a macro of its name for the array above,
// unless the file also gives the name to something else (a host variable `shared` beside
// `extern __shared__ float shared[]`, which C++ scoping lets nvcc take and a macro would replace).
// Then the rewrite declares one of these objects in its place: a local of the same name hides it
// as it hides any global, and at each use it is the running block's array. (What it cannot be:
// the operand of a reinterpret_cast, which converts no class; a C-style or static_cast can.)
template <class T>
struct dynamic_shared_name {
  operator T*() const { return dynamic_shared<T>(); }
  template <class U>
  explicit operator U*() const {
    return reinterpret_cast<U*>(dynamic_shared<T>());
  }
  T& operator[](std::ptrdiff_t i) const { return dynamic_shared<T>()[i]; }
};

template <class T, int Id>
struct block_shared_name {
  unsigned char size_of_the_array[sizeof(T)];  // so that sizeof(name) is the array's, as on a GPU
  operator T&() const { return block_shared<T, Id>(); }
  decltype(auto) operator[](std::ptrdiff_t i) const { return block_shared<T, Id>()[i]; }
};
}  // namespace
}  // namespace emu

// cudaLaunchKernel, the runtime's launch with the kernel's arguments as an array of pointers to
// them. Given the kernel itself, its parameter types say what each pointer points to, and the
// launch is the one <<<...>>> makes (the launch's own error is returned, as the runtime does).
// Given a `const void*`, the types are gone. Where the call casts a kernel's name, as CUDA's
// samples do (`(const void*)k`), emu's rewrite drops the cast (launch_kernel_cast.h); a pointer
// held in a variable cannot be launched here, and the compile says so at the call.
namespace {
template <class... P, std::size_t... I>
cudaError_t launch_from_pointers(void (*kernel)(P...), dim3 grid, dim3 block, void** args,
                                 size_t smem, cudaStream_t stream, std::index_sequence<I...>) {
  emu::launch(kernel, grid, block, smem, stream,
              *static_cast<std::remove_reference_t<P>*>(args[I])...);
  return emu::detail::last_launch_status();
}
}  // namespace

template <class... P>
static inline cudaError_t cudaLaunchKernel(void (*kernel)(P...), dim3 grid, dim3 block, void** args,
                                           size_t shared_mem = 0, cudaStream_t stream = nullptr) {
  return launch_from_pointers(kernel, grid, block, args, shared_mem, stream,
                              std::index_sequence_for<P...>{});
}
cudaError_t cudaLaunchKernel(const void* kernel, dim3 grid, dim3 block, void** args,
                             size_t shared_mem = 0, cudaStream_t stream = nullptr)
    __attribute__((error(
        "the CPU backend cannot launch a kernel given as a void pointer held in a variable: pass "
        "the kernel itself (cudaLaunchKernel(my_kernel, grid, block, args), or "
        "(const void*)my_kernel), or launch it with <<<grid, block>>>")));
