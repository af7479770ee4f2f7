#include "memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>

#include "diagnostics.h"
#include "sealed_tables.h"

namespace emu::detail {
namespace {
constexpr unsigned char kCanary = 0xCA;
constexpr size_t kMinCanary = 64;
// Guards are address space only (PROT_NONE, never committed), so they can be wide: an index that
// runs a few rows past the end of a big matrix still lands in this buffer's guard, not in a
// neighbour, and is reported against the right buffer.
constexpr size_t kGuardBefore = 64 * 1024;
constexpr size_t kGuardAfter = 1024 * 1024;
// Fresh device memory is poisoned like shared memory: NaN floats expose a missing initialisation.
constexpr unsigned char kFreshDevice = 0xFF;

std::mutex registry_mutex;
std::map<uintptr_t, Allocation>& registry() {
  static auto* r = new std::map<uintptr_t, Allocation>();  // never destroyed: used at exit
  return *r;
}
size_t in_use = 0;

size_t page_size() {
  static const size_t p = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return p;
}

size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

char* canary_begin(const Allocation& a) { return a.map_base + kGuardBefore; }

void report_canary(const Allocation& a, size_t first_bad) {
  long long before = static_cast<long long>(a.user - (canary_begin(a) + first_bad));
  char detail[160];
  std::snprintf(detail, sizeof detail,
                "bytes up to %lld before the start of a %zu-byte buffer were overwritten", before,
                a.bytes);
  JsonLine line("guard_overwritten");
  line.hex("address", reinterpret_cast<uintptr_t>(a.user))
      .num("buffer_bytes", static_cast<long long>(a.bytes));
  line.num("offset", -before).str("detail", detail);
  char human[256];
  std::snprintf(human, sizeof human, "guard_overwritten at %p: %s", static_cast<void*>(a.user),
                detail);
  emit(line, human);
}

// Returns true when the canary was intact; repaints it otherwise.
bool canary_intact(const Allocation& a) {
  char* begin = canary_begin(a);
  size_t n = static_cast<size_t>(a.user - begin);
  for (size_t i = 0; i < n; ++i) {
    if (static_cast<unsigned char>(begin[i]) != kCanary) {
      report_canary(a, i);
      std::memset(begin, kCanary, n);
      return false;
    }
  }
  return true;
}
}  // namespace

void* allocate(size_t bytes, MemoryKind kind) {
  const size_t page = page_size();
  const size_t body = round_up(bytes + kMinCanary, page);
  const size_t total = kGuardBefore + body + kGuardAfter;
  void* map = mmap(nullptr, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (map == MAP_FAILED) return nullptr;
  char* base = static_cast<char*>(map);
  if (mprotect(base + kGuardBefore, body, PROT_READ | PROT_WRITE) != 0) {
    munmap(map, total);
    return nullptr;
  }
  Allocation a;
  a.map_base = base;
  a.map_bytes = total;
  a.user = base + kGuardBefore + body - bytes;  // the end touches the upper guard page
  a.bytes = bytes;
  a.kind = kind;
  std::memset(canary_begin(a), kCanary, static_cast<size_t>(a.user - canary_begin(a)));
  if (kind != MemoryKind::pinned_host) std::memset(a.user, kFreshDevice, bytes);

  std::lock_guard<std::mutex> lock(registry_mutex);
  registry()[reinterpret_cast<uintptr_t>(a.user)] = a;
  const auto user = reinterpret_cast<uintptr_t>(a.user);
  const std::pair<uintptr_t, uintptr_t> range{user, user + bytes};
  sealed_append(SealedTable::kAllocations, &range, sizeof range);
  in_use += bytes;
  return a.user;
}

bool release(void* ptr, bool pinned_host) {
  Allocation a;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = registry().find(reinterpret_cast<uintptr_t>(ptr));
    if (it == registry().end()) return false;
    if ((it->second.kind == MemoryKind::pinned_host) != pinned_host) return false;
    a = it->second;
    registry().erase(it);
    sealed_erase_first_word(SealedTable::kAllocations, reinterpret_cast<uintptr_t>(ptr));
    in_use -= a.bytes;
  }
  canary_intact(a);
  munmap(a.map_base, a.map_bytes);
  return true;
}

void release_all() {
  std::map<uintptr_t, Allocation> all;
  {
    std::lock_guard<std::mutex> lock(registry_mutex);
    all.swap(registry());
    sealed_clear(SealedTable::kAllocations);
    in_use = 0;
  }
  for (auto& [key, a] : all) munmap(a.map_base, a.map_bytes);
}

std::optional<Allocation> find_allocation(const void* ptr, size_t bytes) {
  const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  std::lock_guard<std::mutex> lock(registry_mutex);
  auto it = registry().upper_bound(p);
  if (it == registry().begin()) return std::nullopt;
  --it;
  const Allocation& a = it->second;
  const uintptr_t end = it->first + a.bytes;
  if (p > end || bytes > end - p) return std::nullopt;
  return a;
}

int check_canaries() {
  std::lock_guard<std::mutex> lock(registry_mutex);
  int damaged = 0;
  for (auto& [key, a] : registry()) damaged += canary_intact(a) ? 0 : 1;
  return damaged;
}

bool find_allocation_for_fault(uintptr_t address, Allocation* out) {
  // No lock: the handler may interrupt a thread that holds it. Allocations do not change while a
  // kernel runs, which is when faults matter.
  for (auto& [key, a] : registry()) {
    const uintptr_t base = reinterpret_cast<uintptr_t>(a.map_base);
    if (address >= base && address < base + a.map_bytes) {
      *out = a;
      return true;
    }
  }
  return false;
}

std::vector<std::pair<uintptr_t, uintptr_t>> allocation_ranges() {
  // From the sealed copy: the registry's map is ordinary memory a kernel could have changed.
  return sealed_ranges(SealedTable::kAllocations);
}

size_t bytes_in_use() {
  std::lock_guard<std::mutex> lock(registry_mutex);
  return in_use;
}
}  // namespace emu::detail
