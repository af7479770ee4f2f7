#!/bin/sh
# Measures lab 02's copy sweep and float3 versions on the GPU of this machine, from your own
# global_memory.cu (or the reference solution's), and writes bandwidth.txt and bandwidth.svg.
#   labs/02_global_memory/measure_gpu.sh [--src FOLDER] [OUT_DIR]   (needs nvcc and a GPU)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
src="$root/solutions/02_global_memory"
if [ "${1:-}" = "--src" ]; then
  src=$2
  shift 2
fi
out=${1:-${OUT:-/tmp}}
mkdir -p "$out"
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "the copy sweep needs a GPU: none answers here (the CPU backend checks correctness only)" >&2
  exit 77
fi
nvcc -std=c++17 -O3 -arch=native -I"$here" -I"$root/common/include" -I"$root/grader/base" \
  "$src/global_memory.cu" "$here/measure_gpu.cu" "$here/bandwidth_plot.cpp" \
  "$root/grader/base/text.cpp" -o "$out/lab02_measure_gpu"
"$out/lab02_measure_gpu" "$out"
echo "wrote $out/bandwidth.txt and $out/bandwidth.svg"
