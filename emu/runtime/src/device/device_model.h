// The GPU the emulator pretends to be (LABKIT_EMU_DEVICE): its cudaDeviceProp, from public specs,
// so that occupancy answers and limits match the real device.
#pragma once
#include "labkit_emu/runtime_types.h"

namespace emu::detail {
const cudaDeviceProp& device_properties();
}
