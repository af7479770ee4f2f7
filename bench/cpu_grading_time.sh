#!/usr/bin/env bash
# Prints how long the CPU backend takes to grade every lab's reference solution (full correctness
# points required) and its starter (TODO exercises must score 0), one after the other. Not a CTest
# test: the labs' own tests grade the same submissions on every run. Usage:
# bench/cpu_grading_time.sh BUILD_DIR
set -euo pipefail
build="${1:-build}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
labgrade="$build/grader/app/labgrade"
start=$(date +%s.%N)
for lab_dir in "$root"/labs/*/; do
  lab=$(basename "$lab_dir")
  [ -f "$lab_dir/lab.yaml" ] || continue
  t0=$(date +%s.%N)
  "$labgrade" check "$lab" --src "$root/solutions/$lab" --backend cpu --seed 1 --require full \
      >/dev/null 2>&1 || { echo "$lab: the solution did not get full correctness points"; exit 1; }
  "$labgrade" check "$lab" --src "$root/starter/$lab" --backend cpu --seed 1 --require given-only \
      >/dev/null 2>&1 || { echo "$lab: the starter did not fail cleanly"; exit 1; }
  t1=$(date +%s.%N)
  printf '%-20s solution + starter graded in %5.1f s\n' "$lab" "$(awk "BEGIN{print $t1 - $t0}")"
done
end=$(date +%s.%N)
printf 'all labs on the CPU backend: %.1f s on %d cores\n' "$(awk "BEGIN{print $end - $start}")" "$(nproc)"
