// The CPU backend's view of CUDA: force-included (g++ -include) into every lab .cu file that the
// emulator builds, before the emu rewriter turns launches and __shared__ declarations into calls of
// ::emu::launch / ::emu::block_shared / ::emu::dynamic_shared (docs/DESIGN.md, "CPU backend").
//
// Only g++ ever reads this header; nvcc builds use the real CUDA headers. __shared__ is
// deliberately left undefined: the rewriter must still see it after preprocessing.
#pragma once
#if defined(__CUDACC__)
#error "labkit_emu/cuda_emu.h is for the CPU backend (g++) only; nvcc uses the real CUDA headers"
#endif

#define LABKIT_EMU 1

#include "labkit_emu/device_copies.h"  // first: see there
#include "labkit_emu/atomics.h"
#include "labkit_emu/device_functions.h"
#include "labkit_emu/launch.h"
#include "labkit_emu/qualifiers.h"
#include "labkit_emu/runtime_api.h"
#include "labkit_emu/runtime_types.h"
#include "labkit_emu/vector_types.h"
