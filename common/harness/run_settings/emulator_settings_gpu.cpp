#include <stdexcept>

#include "emulator_settings.h"

namespace labkit {

void ApplyEmulatorSettings(const nlohmann::json& request) {
  if (request.contains("emulator"))
    throw std::runtime_error("this harness runs on a GPU, which has no emulator to set");
}

void CountAccessesInCase(bool) {}

}  // namespace labkit
