// Lab files write `#include <cuda_runtime_api.h>`; on the CPU backend that is the emulator's header.
#pragma once
#include "labkit_emu/cuda_emu.h"
