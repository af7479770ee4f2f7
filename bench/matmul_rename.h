// Force-included (nvcc -include) ahead of solutions/03_tiled_matmul/matmul.cu in each of the
// benchmark's builds of that file: it renames the six interface names to carry the tile size,
// e.g. matmul_tiled -> matmul_tiled_t32 when built with -DLABKIT_TILE=32.
//
// Why: the benchmark links the same solution file twice, with TILE 16 and with TILE 32, into one
// program, and both builds define the same six external names (three kernels, three launchers).
// Renaming in the preprocessor keeps matmul.cu untouched and compiled as its own translation unit
// with its own flags, just as labgrade compiles a submission. Because this header comes before
// everything else, the declarations in matmul_lab.cuh are renamed too, so each build is still
// checked against the frozen interface. (Wrapping `#include "matmul.cu"` in a namespace would also
// pull <cuda_runtime.h> and the interface header into that namespace unless they were included
// first; a silent dependency on include order that the rename avoids.)
//
// The launchers' declarations for the benchmark's own code are in matmul_variants.h.
#pragma once

#ifndef LABKIT_TILE
#error "matmul_rename.h needs -DLABKIT_TILE=<tile>: the suffix of every renamed name comes from it"
#endif

// Two levels so that LABKIT_TILE is expanded to its value before the paste.
#define LABKIT_BENCH_PASTE_(name, tile) name##_t##tile
#define LABKIT_BENCH_PASTE(name, tile) LABKIT_BENCH_PASTE_(name, tile)

#define matmul_rows_kernel LABKIT_BENCH_PASTE(matmul_rows_kernel, LABKIT_TILE)
#define matmul_rows LABKIT_BENCH_PASTE(matmul_rows, LABKIT_TILE)
#define matmul_tiled_kernel LABKIT_BENCH_PASTE(matmul_tiled_kernel, LABKIT_TILE)
#define matmul_tiled LABKIT_BENCH_PASTE(matmul_tiled, LABKIT_TILE)
#define matmul_tiled_any_kernel LABKIT_BENCH_PASTE(matmul_tiled_any_kernel, LABKIT_TILE)
#define matmul_tiled_any LABKIT_BENCH_PASTE(matmul_tiled_any, LABKIT_TILE)
