#include "fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "guards.h"

namespace emu::detail {

Fiber* FiberPool::acquire(void (*entry)(ctx::transfer_t)) {
  Fiber* f;
  if (!free_.empty()) {
    f = free_.back();
    free_.pop_back();
  } else {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t total = stack_bytes_ + page;
    void* map = mmap(nullptr, total, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (map == MAP_FAILED || mprotect(map, page, PROT_NONE) != 0) {
      std::fprintf(stderr, "labkit-emu: cannot map a %zu-byte fiber stack\n", total);
      std::abort();
    }
    const auto base = reinterpret_cast<uintptr_t>(map);
    register_guard(base, base + page, GuardKind::fiber_stack);
    all_.push_back(std::make_unique<Fiber>());
    f = all_.back().get();
    f->stack_top = static_cast<char*>(map) + total;  // stacks grow down towards the guard
    f->stack_bytes = stack_bytes_;
  }
  f->context = ctx::make_fcontext(f->stack_top, f->stack_bytes, entry);
  return f;
}

FiberPool::~FiberPool() {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (auto& f : all_) munmap(f->stack_top - f->stack_bytes - page, f->stack_bytes + page);
}
__attribute__((noinline)) void clear_stack_below_caller(const Fiber& fiber) {
  char here;  // in this function's frame, below the caller's
  auto* bottom = reinterpret_cast<volatile uint64_t*>(fiber.stack_top - fiber.stack_bytes);
  auto* end = reinterpret_cast<volatile uint64_t*>(reinterpret_cast<uintptr_t>(&here - 256) & ~7ul);
  for (volatile uint64_t* p = bottom; p < end; ++p) *p = ~0ull;
}
}  // namespace emu::detail
