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

// The macros nvcc's device pass defines for the GPU the CPU backend models (an H100, sm_90, with
// CUDA 13), so that a source's preprocessor conditions read here as they read in the pass whose
// code a GPU runs: a kernel under `#ifdef __CUDA_ARCH__`, or `#if __CUDA_ARCH__ >= 350` around
// __ldg, compiles here as it does there. labgrade compares the lines a submission keeps here with
// those nvcc keeps, and refuses a source that tells the two apart
// (grader/build/backend_conditionals.h).
#define __CUDACC__ 1
#define __NVCC__ 1
#define __CUDA_ARCH__ 900
#define __CUDA_ARCH_LIST__ 900
#define __CUDACC_VER_MAJOR__ 13
#define __CUDACC_VER_MINOR__ 0
#define __CUDA_API_VER_MAJOR__ 13
#define __CUDA_API_VER_MINOR__ 0
// cuda_runtime_api.h's, which sources test to choose between old and new spellings.
#define CUDART_VERSION 13000

#include "labkit_emu/device_copies.h"  // first: see there
#include "labkit_emu/atomics.h"
#include "labkit_emu/device_functions.h"
#include "labkit_emu/launch.h"
#include "labkit_emu/qualifiers.h"
#include "labkit_emu/runtime_api.h"
#include "labkit_emu/runtime_types.h"
#include "labkit_emu/vector_types.h"
