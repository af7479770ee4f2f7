#!/bin/sh
# Measures lab 01's reference solution on the GPU of this machine, for the handout's table.
#   labs/01_first_kernels/measure_gpu.sh [OUT_DIR]      (run from anywhere; needs nvcc and a GPU)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-${OUT:-/tmp}}
mkdir -p "$out"
nvcc -std=c++17 -O3 -arch=native -I"$here" -I"$root/common/include" \
  "$root"/solutions/01_first_kernels/*.cu "$here/measure_gpu.cu" -o "$out/measure_gpu_01"
"$out/measure_gpu_01" | tee "$out/measure_gpu_01.md"
