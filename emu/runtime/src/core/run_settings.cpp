#include "labkit_emu/run_settings.h"

#include "config.h"

namespace emu {

bool set_thread_order(const char* order) {
  detail::Config& c = detail::mutable_config();
  return order != nullptr && detail::parse_order(order, &c.order, &c.seed);
}

void set_worker_threads(unsigned threads) {
  detail::mutable_config().threads = threads == 0 ? 1 : threads;
}

void set_count_accesses(bool on) { detail::mutable_config().count_accesses = on; }

}  // namespace emu
