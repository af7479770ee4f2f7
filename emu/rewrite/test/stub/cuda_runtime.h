#include "labkit_emu/cuda_emu.h"
