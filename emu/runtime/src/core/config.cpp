#include "config.h"

#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <thread>

namespace emu::detail {

bool parse_order(const char* text, Order* order, uint64_t* seed) {
  if (std::strcmp(text, "forward") == 0) {
    *order = Order::forward;
  } else if (std::strcmp(text, "reverse") == 0) {
    *order = Order::reverse;
  } else if (std::strncmp(text, "random:", 7) == 0 && text[7] != '\0') {
    char* end = nullptr;
    unsigned long long value = std::strtoull(text + 7, &end, 10);
    if (*end != '\0') return false;
    *order = Order::random;
    *seed = value;
  } else {
    return false;
  }
  return true;
}

namespace {
Config load() {
  Config c;
  if (const char* order = std::getenv("LABKIT_EMU_ORDER"); order && *order) {
    if (!parse_order(order, &c.order, &c.seed)) {
      std::fprintf(stderr,
                   "labkit-emu: LABKIT_EMU_ORDER=%s is not forward, reverse or random:SEED;"
                   " using forward\n",
                   order);
    }
  }
  c.threads = std::thread::hardware_concurrency();
  if (const char* threads = std::getenv("LABKIT_EMU_THREADS"); threads && *threads) {
    c.threads = static_cast<unsigned>(std::strtoul(threads, nullptr, 10));
  }
  if (c.threads == 0) c.threads = 1;
  if (const char* device = std::getenv("LABKIT_EMU_DEVICE"); device && *device) c.device = device;
  if (const char* kernels = std::getenv("LABKIT_EMU_KERNELS")) c.kernels_path = kernels;
  if (const char* count = std::getenv("LABKIT_EMU_COUNT_ACCESSES"))
    c.count_accesses = std::strcmp(count, "1") == 0;
  return c;
}
}  // namespace

namespace {
// The settings, alone on a page that is read-only but while a ConfigWrite lives: in ordinary
// memory, a kernel of an uncounted launch (whose accesses nothing checks) could set the thread
// order back to forward before an order run's later launches, or switch counting off.
struct alignas(4096) ConfigPage {
  alignas(Config) unsigned char bytes[sizeof(Config)];
};
ConfigPage page;
Config* settings() { return reinterpret_cast<Config*>(page.bytes); }

void protect(int how) {
  if (mprotect(&page, sizeof page, how) != 0) std::abort();
}

// Before the student's constructors (default priority), which could otherwise write the page
// before it is closed.
__attribute__((constructor(101))) void load_the_settings() {
  new (page.bytes) Config(load());
  protect(PROT_READ);
}
}  // namespace

const Config& config() { return *settings(); }

ConfigWrite::ConfigWrite() { protect(PROT_READ | PROT_WRITE); }
ConfigWrite::~ConfigWrite() { protect(PROT_READ); }
Config* ConfigWrite::operator->() const { return settings(); }
Config& ConfigWrite::operator*() const { return *settings(); }
}  // namespace emu::detail
