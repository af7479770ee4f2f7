#!/usr/bin/env bash
# Everything the kit runs on a real GPU, in stages, so one remote call can do several:
#   bench/gpu_session.sh build tests bench trace throughput lab02 contexts library_reload read_counters
#   pageable_memory context_sharing
# Writes logs and results into $OUT (or ./gpu-out). Builds into build-gpu/ (reused if present).
# Extra CMake prefixes (headers a bare GPU machine lacks, e.g. nlohmann-json unpacked from its
# .deb) come from LABKIT_EXTRA_PREFIX, a CMake list ("a;b"). A machine without Boost.Context's
# library builds no CPU backend, and then the GPU backend cannot re-run a failing case on the
# emulator to find its cause (judge/emulator_diagnosis.h): the student corpus's GPU shards say so.
# Unpack libboost-context and libboost-dev of one version into a prefix of their own (without the
# static archive) and put the shared library where the loader's cache finds it.
set -uo pipefail
out="${OUT:-$PWD/gpu-out}"
mkdir -p "$out"
build=build-gpu
status=0

stage_build() {
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        ${LABKIT_EXTRA_PREFIX:+-DCMAKE_PREFIX_PATH=$LABKIT_EXTRA_PREFIX} >"$out/configure.log" 2>&1 \
    || { tail -40 "$out/configure.log"; return 1; }
  cmake --build "$build" -j "$(nproc)" >"$out/build.log" 2>&1 \
    || { grep -E "error" -A3 "$out/build.log" | head -60; return 1; }
  echo "build: ok"
}

stage_tests() {
  # LABKIT_CTEST_ARGS narrows the run (e.g. "-R hostile" or "-E hostile") to fit a call's time.
  # -j 8: shards and labs share the GPU; tests whose points depend on timing are RUN_SERIAL.
  (cd "$build" && ctest -L gpu -j 8 --output-on-failure --timeout 900 ${LABKIT_CTEST_ARGS:-} \
       >"$out/ctest_gpu${LABKIT_CTEST_TAG:-}.log" 2>&1)
  local rc=$?
  grep -E "tests passed|Passed|Failed|Skipped|\*\*\*" "$out/ctest_gpu${LABKIT_CTEST_TAG:-}.log" | tail -20
  return $rc
}

stage_bench() {
  local name="bench-$(date -u +%F)"
  "$build/bench/matmul_bench" --json "$out/$name.json" | tee "$out/$name.txt" | tail -20
}

# One submission (the reference solution) graded alone, every command timed.
stage_trace() {
  rm -f "$out/trace-one.tsv"
  LABKIT_TRACE_COMMANDS="$out/trace-one.tsv" "$build/grader/app/labgrade" check 03_tiled_matmul \
      --src solutions/03_tiled_matmul --backend gpu --seed 11 >"$out/trace-one.log" 2>&1
  python3 bench/trace_summary.py "$out/trace-one.tsv" | tee "$out/trace-one.txt"
}

# LABKIT_CLASS_SIZE submissions (100) of LABKIT_CLASS_MIX (bad), graded with LABKIT_JOBS jobs (nproc),
# with the CPUs and the GPU sampled meanwhile (machine_usage.py): which of them the batch uses up.
stage_throughput() {
  local n="${LABKIT_CLASS_SIZE:-100}" class=/tmp/labkit_class marks=/tmp/labkit_marks
  rm -rf "$class" "$marks"
  local mix="${LABKIT_CLASS_MIX:-bad}"  # bad | realistic (bench/make_class.py)
  python3 bench/make_class.py 03_tiled_matmul "$n" "$class" --mix "$mix"
  local start end
  start=$(date +%s.%N)
  rm -f "$out/trace-class.tsv"
  python3 bench/machine_usage.py "$out/usage-class.tsv" >"$out/usage-class.txt" &
  local sampler=$!
  LABKIT_TRACE_COMMANDS="$out/trace-class.tsv" \
  "$build/grader/app/labgrade" grade 03_tiled_matmul --submissions "$class" --out "$marks" \
      --jobs "${LABKIT_JOBS:-$(nproc)}" --backend gpu --seed 11 >"$out/throughput.log" 2>&1
  local rc=$?
  end=$(date +%s.%N)
  kill "$sampler"; wait "$sampler"
  cp "$marks/gradebook.csv" "$marks/summary.txt" "$out/" 2>/dev/null
  python3 -c "import sys; s=float(sys.argv[2])-float(sys.argv[1]); n=int(sys.argv[3]); \
print(f'throughput: {n} submissions ({sys.argv[6]} mix) in {s:.1f} s = {60*n/s:.1f} submissions/minute on', \
sys.argv[4], 'with', sys.argv[5], 'jobs')" "$start" "$end" "$n" \
      "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)" "${LABKIT_JOBS:-$(nproc)}" "$mix" \
      | tee "$out/throughput.txt"
  tail -3 "$out/throughput.log"
  python3 bench/trace_summary.py "$out/trace-class.tsv" "$n" | tee "$out/trace-class.txt"
  cat "$out/usage-class.txt"
  return $rc
}

# Whether kernels can reach the process's pageable host memory (bench/pageable_memory_probe.cu).
stage_pageable_memory() {
  nvcc -O2 -o "$out/pageable_memory_probe" bench/pageable_memory_probe.cu || return 1
  "$out/pageable_memory_probe" | tee "$out/pageable-memory.txt"
}

# What a CUDA context costs (bench/context_cost.cu), alone and sixteen at once, with the default
# eight hardware work queues and with one (the harness's CUDA_DEVICE_MAX_CONNECTIONS=1).
stage_contexts() {
  nvcc -O2 -o "$out/context_cost" bench/context_cost.cu || return 1
  local setting i
  for setting in CUDA_DEVICE_MAX_CONNECTIONS=8 CUDA_DEVICE_MAX_CONNECTIONS=1; do
    env "$setting" "$out/context_cost" >"$out/contexts-alone.txt"
    for i in $(seq 16); do env "$setting" "$out/context_cost" >"$out/contexts-$i.txt" & done
    wait
    cat "$out"/contexts-[0-9]*.txt | awk -v s="$setting" -v alone="$(cat "$out/contexts-alone.txt")" \
      '{c += $1; r += $3} END {split(alone, a, " "); printf "%s: alone create %.3f s reset %.3f s; 16 at once create %.3f s reset %.3f s (mean)\n", s, a[1], a[3], c / NR, r / NR}'
    rm -f "$out"/contexts-*.txt
  done
  rm -f "$out/context_cost"
}

# Whether one context serves small replays faster than a context per process
# (bench/context_sharing_cost.cu): 16 workers each way, and one thread alone (requests one at a
# time in one context), 20 s each, with the harness's one hardware work queue per context.
stage_context_sharing() {
  nvcc -O2 -std=c++17 -o "$out/context_sharing_cost" bench/context_sharing_cost.cu || return 1
  local way rc=0
  : >"$out/context-sharing.txt"
  for way in "spawn 16" "processes 16" "threads 16" "threads 1"; do
    # shellcheck disable=SC2086  # "mode workers", split on purpose
    CUDA_DEVICE_MAX_CONNECTIONS=1 "$out/context_sharing_cost" $way 20 \
      | tee -a "$out/context-sharing.txt" || rc=1
  done
  rm -f "$out/context_sharing_cost"
  return $rc
}

# What a warm replay process would pay per submission (bench/library_reload_cost.cu): lab 03's
# solution as a fatbinary loaded, one kernel run and unloaded, 50 turns, alone and sixteen at once
# (one work queue per context, as the harness runs), beside the contexts stage's process per run.
stage_library_reload() {
  nvcc -O2 -o "$out/library_reload_cost" bench/library_reload_cost.cu || return 1
  nvcc -fatbin -O3 -arch=native -Ilabs/03_tiled_matmul solutions/03_tiled_matmul/matmul.cu \
      -o "$out/solution.fatbin" || return 1
  local run=("$out/library_reload_cost" "$out/solution.fatbin" _Z19matmul_tiled_kernelPKfS0_Pfiii 50)
  CUDA_DEVICE_MAX_CONNECTIONS=1 "${run[@]}" >"$out/reload-alone.txt" || return 1
  local i
  for i in $(seq 16); do CUDA_DEVICE_MAX_CONNECTIONS=1 "${run[@]}" >"$out/reload-$i.txt" & done
  wait
  cat "$out"/reload-[0-9]*.txt | awk -v alone="$(cat "$out/reload-alone.txt")" \
    '{c += $1; m += $2; if ($3 > w) w = $3} END {split(alone, a, " "); printf "library turn (load, launch, wait, unload): alone context %.3f s, turn %.2f ms (worst %.2f); 16 at once context %.3f s, turn %.2f ms (worst %.2f), means of the processes\n", a[1], a[2], a[3], c / NR, m / NR, w}'
  rm -f "$out"/reload-*.txt "$out/library_reload_cost" "$out/solution.fatbin"
}

# Which profiler counters see each way a kernel reads global memory (bench/global_read_probe.cu),
# per kernel, with Nsight Compute: what the technique check's metrics rest on.
stage_read_counters() {
  nvcc -O2 -arch=native -o "$out/global_read_probe" bench/global_read_probe.cu || return 1
  local ncu metric
  ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
  for metric in smsp__sass_inst_executed_op_global_ld.sum smsp__sass_inst_executed_op_global_st.sum \
      smsp__sass_inst_executed_op_global_atom.sum smsp__sass_inst_executed_op_global_red.sum \
      smsp__sass_inst_executed_op_ldgsts.sum smsp__sass_inst_executed_op_tma.sum \
      l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum smsp__sass_inst_executed_op_shared_ld.sum; do
    echo "== $metric"
    "$ncu" --metrics "$metric" --csv --print-units base "$out/global_read_probe" 2>&1 |
      grep '"k_' | awk -F'","' '{split($5, k, "("); print k[1], $NF}' | tr -d '"'
  done | tee "$out/read_counters.txt"
  rm -f "$out/global_read_probe"
}

# Lab 02 on the GPU alone: its gpu tests (grading, the copy sweep, float3 against direct), its
# mutants, the sweep's table and plot kept in $OUT, and the load widths read from SASS.
stage_lab02() {
  local rc=0
  (cd "$build" && ctest -L gpu -R '^02_global_memory' --output-on-failure --timeout 900 \
       >"$out/ctest_lab02.log" 2>&1) || rc=1
  grep -E "tests passed|Passed|Failed|Skipped|\*\*\*" "$out/ctest_lab02.log" | tail -10
  "$build/grader/tests/mutants_test" --backend=gpu --gtest_filter='Lab/MutantTest.*/l02_*' \
      >"$out/mutants_lab02.log" 2>&1 || rc=1
  grep -E "^\[  (PASSED|FAILED)" "$out/mutants_lab02.log"
  cp "$build"/labs/02_global_memory/sweep/bandwidth.txt "$build"/labs/02_global_memory/sweep/bandwidth.svg \
      "$out/" 2>/dev/null && cat "$out/bandwidth.txt"
  python3 labs/02_global_memory/load_widths.py --check | tee "$out/load_widths.txt" || rc=1
  return $rc
}

for stage in "$@"; do
  echo "== $stage"
  "stage_$stage" || status=1
done
exit $status
