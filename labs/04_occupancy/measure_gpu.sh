#!/bin/sh
# Measures lab 04's reference solution on the GPU of this machine, for the handout's table:
# per block side the occupancy the API gives, the median time at 2048^3 and GFLOP/s.
#   labs/04_occupancy/measure_gpu.sh [OUT_DIR]      (run from anywhere; needs nvcc and a GPU)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:-${OUT:-/tmp}}
mkdir -p "$out"
nvcc -std=c++17 -O3 -arch=native -I"$here" -I"$root/common/include" \
  "$root/solutions/04_occupancy/occupancy.cu" "$here/measure_gpu.cu" -o "$out/measure_gpu_04"
"$out/measure_gpu_04" | tee "$out/measure_gpu_04.md"
