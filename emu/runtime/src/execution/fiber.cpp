#include "fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "guards.h"

namespace emu::detail {
namespace {
// Each thread clears the opened stack below the runner's frame, about 8 ns a KiB here: 8 KiB would
// cost a trivial kernel's thread eight times its own time. So only the top page is open at
// creation, and the fiber's frames start this far above that page's bottom (the rest of the page
// stays unused): each thread clears about 2 KiB, enough for the kit's own calls and a small
// kernel's frames. A thread that goes deeper opens more pages, which that fiber's later threads
// clear too.
constexpr size_t kFirstPageInUse = 2560;
}  // namespace

Fiber* FiberPool::acquire(void (*entry)(ctx::transfer_t)) {
  Fiber* f;
  if (!free_.empty()) {
    f = free_.back();
    free_.pop_back();
  } else {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t total = stack_bytes_ + page;
    void* map = mmap(nullptr, total, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    // Stacks grow down towards the guard.
    char* top = map == MAP_FAILED ? nullptr : static_cast<char*>(map) + total;
    if (top == nullptr || mprotect(top - page, page, PROT_READ | PROT_WRITE) != 0) {
      std::fprintf(stderr, "labkit-emu: cannot map a %zu-byte fiber stack\n", total);
      std::abort();
    }
    const auto base = reinterpret_cast<uintptr_t>(map);
    register_guard(base, base + page, GuardKind::fiber_stack);
    all_.push_back(std::make_unique<Fiber>());
    f = all_.back().get();
    f->stack_top = top;
    f->stack_bytes = stack_bytes_;
    f->pages = register_stack_pages(base + page, reinterpret_cast<uintptr_t>(top),
                                    reinterpret_cast<uintptr_t>(top - page));
    if (f->pages == nullptr)
      mprotect(static_cast<char*>(map) + page, stack_bytes_ - page, PROT_READ | PROT_WRITE);
  }
  const size_t unused =
      frames_at_top_ ? 0 : static_cast<size_t>(sysconf(_SC_PAGESIZE)) - kFirstPageInUse;
  f->context = ctx::make_fcontext(f->stack_top - unused, f->stack_bytes - unused, entry);
  return f;
}

FiberPool::~FiberPool() {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  for (auto& f : all_) {
    retire_stack_pages(f->pages);
    munmap(f->stack_top - f->stack_bytes - page, f->stack_bytes + page);
  }
}
}  // namespace emu::detail

// Whether the fill may use AVX2 (twice as fast as `rep stosq` on a 2 KiB fill); set once at start.
extern "C" {
unsigned char __emu_fill_with_avx2 = 0;
}
namespace {
// __builtin_cpu_init first: static initialisers may run before libgcc's own call of it.
const bool avx2_checked =
    (__builtin_cpu_init(), __emu_fill_with_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0, true);
}  // namespace

// rdi: the bottom (32-byte aligned: a page). On entry rsp points at the return address: the fill
// stops just below it, so the caller's frame is kept and nothing below it is. A bottom at or above
// rsp fills nothing. The AVX2 path fills the last 8 to 24 bytes (rsp is 8 mod 16) a quadword at a
// time, then 32-byte blocks from the bottom up.
asm(R"(
  .text
  .globl __emu_fill_stack_below_caller
  .type __emu_fill_stack_below_caller, @function
__emu_fill_stack_below_caller:
  mov %rsp, %rcx
  cmp %rcx, %rdi
  jae 4f
  mov $-1, %rax
  cmpb $0, __emu_fill_with_avx2(%rip)
  jne 1f
  sub %rdi, %rcx
  shr $3, %rcx
  rep stosq
  ret
1:
  mov %rcx, %rdx
  and $-32, %rdx
2:
  cmp %rdx, %rcx
  jbe 3f
  sub $8, %rcx
  mov %rax, (%rcx)
  jmp 2b
3:
  vpcmpeqd %ymm0, %ymm0, %ymm0
5:
  cmp %rdx, %rdi
  jae 6f
  vmovdqa %ymm0, (%rdi)
  add $32, %rdi
  jmp 5b
6:
  vzeroupper
4:
  ret
  .size __emu_fill_stack_below_caller, .-__emu_fill_stack_below_caller
)");
