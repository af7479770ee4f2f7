#include "faults.h"

#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "access_counter.h"
#include "diagnostics.h"
#include "guards.h"
#include "memory.h"
#include "scheduler.h"
#include "stack_pages.h"
#include "watched_data.h"

namespace emu::detail {
namespace {
constexpr size_t kAltStackBytes = 64 * 1024;
__thread bool has_alternate_stack = false;
std::atomic<bool> reporting{false};

// Appends `text` to a fixed buffer (no heap in a signal handler).
struct Message {
  char text[512];
  size_t len = 0;
  Message& operator<<(const char* s) {
    while (*s && len + 1 < sizeof text) text[len++] = *s++;
    text[len] = '\0';
    return *this;
  }
  Message& number(unsigned long long v, int base = 10) {
    char digits[32];
    if (base == 16) *this << "0x";
    format_unsigned(digits, v, base);
    return *this << digits;
  }
};

void add_thread_context(JsonLine& line, Message& human) {
  const Worker* w = Worker::running();
  if (w == nullptr || w->launch() == nullptr) {
    human << " in host code";
    return;
  }
  line.str("kernel", w->launch()->kernel_name).dims("block", blockIdx).dims("thread", threadIdx);
  human << " in kernel " << w->launch()->kernel_name << ", block (";
  human.number(blockIdx.x) << ",";
  human.number(blockIdx.y) << ",";
  human.number(blockIdx.z) << "), thread (";
  human.number(threadIdx.x) << ",";
  human.number(threadIdx.y) << ",";
  human.number(threadIdx.z) << ")";
}

void on_fault(int signal, siginfo_t* info, void* context) {
  // A counted launch's access to the student's data: counted and stepped over, not a fault.
  if (signal == SIGSEGV && on_watched_fault(info, context)) return;
  // A fiber's stack grown into a page not opened yet (stack_pages.h): opened, not a fault.
  if (signal == SIGSEGV && open_stack_pages(reinterpret_cast<uintptr_t>(info->si_addr))) return;
  // One report even when several OS threads fault at once; the others wait for _exit.
  if (reporting.exchange(true)) {
    for (;;) pause();
  }
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  const auto* uc = static_cast<const ucontext_t*>(context);
  // In one of CUDA's atomic functions, the kernel's call of it (device_atomics.cpp).
  const uintptr_t pc = atomic_caller != 0 ? atomic_caller - 1
                                          : static_cast<uintptr_t>(uc->uc_mcontext.gregs[REG_RIP]);
  // Bit 1 of the x86 page-fault error code: the access was a write.
  const char* access = (uc->uc_mcontext.gregs[REG_ERR] & 2) ? "write" : "read";

  Message human;
  Allocation a;
  const GuardKind guard = find_guard(address);
  const Worker* w = Worker::running();
  const char* kind;
  if (guard == GuardKind::fiber_stack) {
    kind = "stack_overflow";
  } else if (guard == GuardKind::dynamic_shared || find_allocation_for_fault(address, &a)) {
    kind = "out_of_bounds";
  } else if (w != nullptr) {
    kind = "invalid_address";
  } else {
    // Not ours (a host bug unrelated to device memory): let the default action crash as usual.
    ::signal(signal, SIG_DFL);
    reporting.store(false);
    return;
  }

  JsonLine line(kind);
  human << kind << ": ";
  if (guard == GuardKind::fiber_stack) {
    human << "a CUDA thread ran out of stack (deep recursion or a large local array)";
  } else {
    long long bytes = 0, offset = 0;
    const char* buffer = "device";
    if (guard == GuardKind::dynamic_shared && w != nullptr) {
      bytes = static_cast<long long>(w->dynamic_smem_bytes());
      offset = static_cast<long long>(address - reinterpret_cast<uintptr_t>(dynamic_smem_base));
      buffer = "dynamic_shared";
    } else if (kind[0] == 'o') {
      bytes = static_cast<long long>(a.bytes);
      offset = static_cast<long long>(address - reinterpret_cast<uintptr_t>(a.user));
    }
    line.str("access", access).hex("address", address);
    if (kind[0] == 'o') {
      line.num("buffer_bytes", bytes).num("offset", offset);
      if (buffer[0] == 'd' && buffer[1] == 'y') line.str("buffer", buffer);
      human << access << " at byte offset ";
      if (offset < 0) {
        human << "-";
        human.number(static_cast<unsigned long long>(-offset));
      } else {
        human.number(static_cast<unsigned long long>(offset));
      }
      human << " of a ";
      human.number(static_cast<unsigned long long>(bytes));
      human << (buffer[0] == 'd' && buffer[1] == 'y' ? "-byte dynamic shared memory"
                                                     : "-byte buffer");
    } else if (info->si_code == SI_KERNEL) {
      // The CPU reports no address for a general-protection fault.
      const char* detail =
          "general protection fault: usually a vector access (float4, int2, ...) at an address "
          "that is not a multiple of its size, or a garbage pointer";
      line.str("detail", detail);
      human << detail;
    } else {
      human << access << " of address ";
      human.number(address, 16);
    }
  }
  add_thread_context(line, human);
  line.hex("pc", pc);
  human << ", pc ";
  human.number(pc, 16);
  emit(line, human.text);
  _exit(kFatalExitCode);
}
}  // namespace

void ensure_alternate_signal_stack() {
  if (has_alternate_stack) return;
  void* mem =
      mmap(nullptr, kAltStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) return;
  stack_t ss{};
  ss.ss_sp = mem;
  ss.ss_size = kAltStackBytes;
  if (sigaltstack(&ss, nullptr) == 0) has_alternate_stack = true;
}

void install_fault_handlers() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = &on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, nullptr);
  sigaction(SIGBUS, &sa, nullptr);
}
}  // namespace emu::detail

extern "C" void __emu_host_call_in_kernel(const char* function, uintptr_t return_address) {
  using namespace emu::detail;
  // One report, as for a fault; other OS threads stop here until the exit.
  if (reporting.exchange(true)) {
    for (;;) pause();
  }
  JsonLine line("host_call_in_kernel");
  Message human;
  line.str("function", function);
  human << "host_call_in_kernel: " << function << " called";
  add_thread_context(line, human);
  // The call instruction itself, one byte before where it returns to: addr2line names its line.
  line.hex("pc", return_address - 1);
  human << ", pc ";
  human.number(return_address - 1, 16);
  emit(line, human.text);
  _exit(kFatalExitCode);
}
