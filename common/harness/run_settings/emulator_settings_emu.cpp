#include <stdexcept>
#include <string>

#include "emulator_settings.h"
#include "labkit_emu/access_counts.h"
#include "labkit_emu/run_settings.h"

namespace labkit {

namespace {
bool count_requested = false;  // the request's "emulator".count_accesses
}  // namespace

void ApplyEmulatorSettings(const nlohmann::json& request) {
  const auto settings = request.find("emulator");
  if (settings == request.end()) return;
  if (!settings->is_object()) throw std::runtime_error("\"emulator\" must be an object");
  if (const auto order = settings->find("order"); order != settings->end())
    if (!order->is_string() || !emu::set_thread_order(order->get<std::string>().c_str()))
      throw std::runtime_error("\"emulator\".order must be forward, reverse or random:SEED");
  if (const auto threads = settings->find("threads"); threads != settings->end()) {
    if (!threads->is_number_unsigned())
      throw std::runtime_error("\"emulator\".threads must be a count");
    emu::set_worker_threads(threads->get<unsigned>());
  }
  if (const auto count = settings->find("count_accesses"); count != settings->end()) {
    if (!count->is_boolean())
      throw std::runtime_error("\"emulator\".count_accesses must be true or false");
    count_requested = count->get<bool>();
    emu::set_count_accesses(count_requested);
  }
}

void CountAccessesInCase(bool counted) {
  emu::set_count_accesses(count_requested && counted);
  emu::detail::begin_sealed_case();  // the case's counts, from here (UseSealedCounts)
}

}  // namespace labkit
