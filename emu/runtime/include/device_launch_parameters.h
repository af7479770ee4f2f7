// Lab files write `#include <device_launch_parameters.h>`; on the CPU backend that is the
// emulator's header.
#pragma once
#include "labkit_emu/cuda_emu.h"
