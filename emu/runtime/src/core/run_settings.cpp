#include "labkit_emu/run_settings.h"

#include "config.h"

namespace emu {

bool set_thread_order(const char* order) {
  const detail::ConfigWrite c;
  return order != nullptr && detail::parse_order(order, &c->order, &c->seed);
}

void set_worker_threads(unsigned threads) {
  detail::ConfigWrite()->threads = threads == 0 ? 1 : threads;
}

void set_count_accesses(bool on) { detail::ConfigWrite()->count_accesses = on; }

}  // namespace emu
