// CUDA's <mma.h> (warp matrix multiply-accumulate, nvcuda::wmma) has no CPU counterpart here.
// Without this header g++ found CUDA's own, which declares nothing outside nvcc, and the message
// blamed the first use of nvcuda::wmma instead of the include.
#pragma once
#error \
    "<mma.h> (tensor-core WMMA, nvcuda::wmma) is not supported on the CPU backend: grade on a GPU, or compute the tiles with ordinary multiply-adds"
