#include "watched_data.h"

#include <Zydis/Zydis.h>
#include <pthread.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <random>

#include "access_counter.h"
#include "emulated_access.h"
#include "labkit_emu/access_counts.h"
#include "sealed_tables.h"
#include "stack_pages.h"

namespace emu::detail {
namespace {
constexpr uintptr_t kPage = 4096;
constexpr greg_t kTrapFlag = 0x100;  // EFLAGS.TF: trap after the next instruction
// An instruction touches at most two pages per memory operand, and has at most two of those.
constexpr int kMaxOpenPages = 4;
// What an access counts for when its instruction cannot be decoded: the widest vector load.
constexpr uint64_t kUndecodedBytes = 64;

// What is watched, as watch_during_counted_launches set it: sealed (sealed_tables.h), since a
// kernel of an uncounted launch could otherwise move the watch off its own arrays, or point the
// alias elsewhere. The handlers read it in place, without a guard or a lock (one OS thread runs a
// watched launch).
struct WatchConfig {
  uintptr_t begin = 0, end = 0;
  unsigned char* alias = nullptr;  // the same bytes, always open (map_twice), or null
  ZydisDecoder decoder;
};

// The sealed configuration, or null where nothing is watched.
const WatchConfig* watched() {
  size_t count = 0;
  const auto* config =
      static_cast<const WatchConfig*>(sealed_items(SealedTable::kWatchedData, count));
  return count == 0 ? nullptr : &config[count - 1];
}

// The armed launch's state: a plain global, zero-initialised, set afresh as each counted launch
// starts (WatchedLaunch), in the runtime's own data (never in the pages it closes, and in the own
// memory a counted block's kernel may not touch: own_memory.h).
struct Watch {
  std::atomic<bool> armed{false};
  pthread_t thread;                          // the OS thread the armed launch runs on
  uint64_t sample[kWatchedBlocks - 1] = {};  // the armed launch's random blocks (watch_block)
  // The instruction being stepped over, and what of it was counted: one instruction can fault
  // once per page it touches, and is one load and at most one store.
  bool stepping = false;
  greg_t step_pc = 0;
  bool counted_load = false, counted_store = false;
  uintptr_t open_pages[kMaxOpenPages];
  int open_count = 0;
};
Watch watch;

struct Decoded {
  bool ok = false;
  ZydisDecodedInstruction instruction;
  ZydisDecodedOperand operands[ZYDIS_MAX_OPERAND_COUNT];
};

Decoded decode(const WatchConfig& w, greg_t pc) {
  Decoded d;
  d.ok = ZYAN_SUCCESS(ZydisDecoderDecodeFull(&w.decoder, reinterpret_cast<const void*>(pc),
                                             ZYDIS_MAX_INSTRUCTION_LENGTH, &d.instruction,
                                             d.operands));
  return d;
}

// The bytes the instruction reads or writes through its memory operands (the widest; a string
// instruction's per repetition, each of which the step traps after).
uint64_t operand_bytes(const Decoded& d) {
  if (!d.ok) return kUndecodedBytes;
  uint64_t bytes = 0;
  for (int i = 0; i < d.instruction.operand_count; ++i)
    if (d.operands[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
        d.operands[i].mem.type != ZYDIS_MEMOP_TYPE_AGEN)  // lea computes an address, reads nothing
      bytes = std::max<uint64_t>(bytes, d.operands[i].size / 8);
  return bytes > 0 ? bytes : kUndecodedBytes;
}

// Whether a memory operand of the instruction is read (an undecodable one is taken to read).
bool reads_memory(const Decoded& d) {
  if (!d.ok) return true;
  for (int i = 0; i < d.instruction.operand_count; ++i)
    if (d.operands[i].type == ZYDIS_OPERAND_TYPE_MEMORY &&
        d.operands[i].mem.type != ZYDIS_MEMOP_TYPE_AGEN &&
        (d.operands[i].actions & ZYDIS_OPERAND_ACTION_MASK_READ) != 0)
      return true;
  return false;
}

bool in_watch(const WatchConfig& w, uintptr_t address) {
  return address >= w.begin && address < w.end;
}

// emulated_access.h's view of memory: the watched bytes through the other mapping, the rest as is.
void* accessible(uintptr_t address, uint64_t bytes) {
  const WatchConfig* w = watched();
  if (w == nullptr || address + bytes <= w->begin || address >= w->end) {
    // A copy onto a fiber's stack may reach pages not opened yet: opened here, since a fault in
    // the handler itself (SIGSEGV blocked) would kill the process.
    open_stack_pages(address);
    return reinterpret_cast<void*>(address);
  }
  if (address < w->begin || address + bytes > w->end) return nullptr;
  return w->alias + (address - w->begin);
}

// The watched pages as a shared mapping of a memory file, in place (same address, same bytes),
// and a second, writable mapping of the same file for the handler: false (and nothing changed)
// where the system refuses (null then), and the handler then steps every access.
unsigned char* map_twice(uintptr_t begin, size_t bytes) {
  const int file = memfd_create("labkit-watched-data", MFD_CLOEXEC);
  if (file < 0) return nullptr;
  void* alias = MAP_FAILED;
  if (ftruncate(file, static_cast<off_t>(bytes)) == 0)
    alias = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
  bool placed = false;
  if (alias != MAP_FAILED) {
    std::memcpy(alias, reinterpret_cast<void*>(begin), bytes);
    placed = mmap(reinterpret_cast<void*>(begin), bytes, PROT_READ | PROT_WRITE,
                  MAP_SHARED | MAP_FIXED, file, 0) != MAP_FAILED;
    if (!placed) munmap(alias, bytes);
  }
  close(file);
  return placed ? static_cast<unsigned char*>(alias) : nullptr;
}

bool on_watch_thread() { return pthread_equal(pthread_self(), watch.thread) != 0; }

// SIGTRAP after the stepped instruction: its pages are closed again.
void on_step(int signal, siginfo_t*, void* context) {
  if (!watch.stepping || !on_watch_thread()) {
    // Not a step of ours (an int3 of the student's): the default action, as without the handler.
    ::signal(signal, SIG_DFL);
    raise(signal);
    return;
  }
  for (int i = 0; i < watch.open_count; ++i)
    mprotect(reinterpret_cast<void*>(watch.open_pages[i]), kPage, PROT_NONE);
  watch.open_count = 0;
  watch.stepping = false;
  static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_EFL] &= ~kTrapFlag;
}

void install_step_handler() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = &on_step;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTRAP, &sa, nullptr);
}

[[noreturn]] void kit_fault(const char* what) {
  // The kit's own failure, not the student's: labgrade reports a run that dies so as not graded.
  std::fprintf(stderr, "emu: %s (%s)\n", what, std::strerror(errno));
  std::abort();
}

// The whole watched range's protection, where a range is watched.
void set_watched_protection(int protection, const char* failure) {
  const WatchConfig* w = watched();
  if (w != nullptr && w->end > w->begin &&
      mprotect(reinterpret_cast<void*>(w->begin), w->end - w->begin, protection) != 0)
    kit_fault(failure);
}
}  // namespace

void watch_during_counted_launches(void* begin, size_t bytes) {
  const auto first = reinterpret_cast<uintptr_t>(begin);
  if (const WatchConfig* before = watched(); before != nullptr && before->alias != nullptr)
    munmap(before->alias, before->end - before->begin);
  sealed_clear(SealedTable::kWatchedData);
  // nothing watched from here, where bytes == 0 (the pages stay shared: harmless)
  if (bytes == 0) return;
  if (first % kPage != 0 || bytes % kPage != 0) {
    errno = EINVAL;
    kit_fault("the watched data does not fill whole pages");
  }
  WatchConfig config;
  if (!ZYAN_SUCCESS(
          ZydisDecoderInit(&config.decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64))) {
    errno = EINVAL;
    kit_fault("cannot start the instruction decoder");
  }
  config.begin = first;
  config.end = first + bytes;
  config.alias = map_twice(first, bytes);
  sealed_append(SealedTable::kWatchedData, &config, sizeof config);
}

bool data_is_watched() {
  const WatchConfig* w = watched();
  return w != nullptr && w->end > w->begin;
}

std::pair<uintptr_t, uintptr_t> watched_range() {
  const WatchConfig* w = watched();
  return w == nullptr ? std::pair<uintptr_t, uintptr_t>{0, 0}
                      : std::pair<uintptr_t, uintptr_t>{w->begin, w->end};
}

WatchedLaunch::WatchedLaunch(uint64_t launched_blocks) {
  if (data_is_watched()) {
    install_step_handler();
    watch.thread = pthread_self();
    watch.stepping = false;
    watch.open_count = 0;
  }
  std::random_device random;
  const uint64_t blocks = std::max<uint64_t>(launched_blocks, 1);
  for (uint64_t& b : watch.sample) b = ((uint64_t{random()} << 32) | random()) % blocks;
  watch.armed.store(true);
}

WatchedLaunch::~WatchedLaunch() { watch.armed.store(false); }

bool watch_block(unsigned long long block) {
  if (!watch.armed.load()) return false;
  const bool sampled = block == 0 || std::find(std::begin(watch.sample), std::end(watch.sample),
                                               block) != std::end(watch.sample);
  if (!sampled) return false;
  // One OS thread runs a launch whose data is watched (LaunchState::one_os_thread).
  set_watched_protection(PROT_NONE, "cannot close the student's data for a counted block");
  return true;
}

void unwatch_block() {
  set_watched_protection(PROT_READ | PROT_WRITE,
                         "cannot open the student's data after a counted block");
}

bool on_watched_fault(const siginfo_t* info, void* context) {
  if (!watch.armed.load() || !on_watch_thread()) return false;
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  const WatchConfig* watching = watched();
  if (watching == nullptr || !in_watch(*watching, address)) return false;
  const WatchConfig& w = *watching;
  auto& registers = static_cast<ucontext_t*>(context)->uc_mcontext.gregs;
  const greg_t pc = registers[REG_RIP];
  const Decoded instruction = decode(w, pc);
  if (!watch.stepping && w.alias != nullptr && instruction.ok) {
    const Emulated done = emulate_access(instruction.instruction, instruction.operands,
                                         *static_cast<ucontext_t*>(context), &accessible);
    for (int i = 0; i < done.count; ++i)
      if (in_watch(w, done.accesses[i].address))
        note_watched_access(done.accesses[i].address, done.accesses[i].bytes,
                            done.accesses[i].store, w.begin, w.end);
    if (done.count > 0) return true;
  }
  // Bit 1 of the x86 page-fault error code: the access was a write.
  const bool store = (registers[REG_ERR] & 2) != 0;
  if (!watch.stepping || watch.step_pc != pc) {
    watch.step_pc = pc;
    watch.counted_load = watch.counted_store = false;
    watch.open_count = 0;
  }
  bool& counted = store ? watch.counted_store : watch.counted_load;
  if (!counted) note_watched_access(address, operand_bytes(instruction), store, w.begin, w.end);
  counted = true;
  // A read-modify-write (`add %eax, x(%rip)`, `xchg`) faults as a write, but reads too.
  if (store && !watch.counted_load && reads_memory(instruction)) {
    note_watched_access(address, operand_bytes(instruction), false, w.begin, w.end);
    watch.counted_load = true;
  }
  if (watch.open_count == kMaxOpenPages) return false;  // no instruction gets here
  const uintptr_t page = address & ~(kPage - 1);
  if (mprotect(reinterpret_cast<void*>(page), kPage, PROT_READ | PROT_WRITE) != 0) return false;
  watch.open_pages[watch.open_count++] = page;
  watch.stepping = true;
  registers[REG_EFL] |= kTrapFlag;
  return true;
}

}  // namespace emu::detail
