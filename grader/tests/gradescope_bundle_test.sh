#!/usr/bin/env bash
# The Gradescope bundle end to end, as Gradescope uses it: the zip unpacked into
# <root>/source, setup.sh builds the kit it holds (apt skipped: the packages are here already),
# run_autograder grades <root>/submission into <root>/results/results.json. For every lab: the
# reference solution (every correctness point, speed "not measured"), the starter (fewer) and an
# empty submission (a clear message, score 0). The kit is built once, from the first lab's
# bundle: the labs' bundles differ only in run_autograder.
#   gradescope_bundle_test.sh LABGRADE KIT_SOURCE_DIR WORK_DIR
set -euo pipefail
labgrade=$1 kit=$2 work=$3
labs=$(cd "$kit/labs" && ls -d [0-9]*/ | tr -d /)
lab=$(echo "$labs" | head -1)
rm -rf "$work"
mkdir -p "$work"
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$labgrade" gradescope-bundle "$lab" --out "$work/bundle"
root="$work/autograder"
mkdir -p "$root/source"
python3 -m zipfile -e "$work/bundle/autograder.zip" "$root/source"
[ -f "$root/source/setup.sh" ] && [ -f "$root/source/run_autograder" ] ||
  fail "setup.sh and run_autograder must be at the top of the zip"
[ -e "$root/source/source/solutions" ] && fail "the bundle holds solutions/, readable by students"

# setup.sh installs what ./kit installs (its `packages` list), but for two: bubblewrap, not tried in
# Gradescope's containers (labgrade says what it cannot enforce without it), and ccache, for
# rebuilds. This test skips the installation, so a package left out would go unseen here: setup.sh
# once left out libzydis-dev, without which CMake builds no CPU backend (cmake/Dependencies.cmake).
for p in $(sed -n '/^packages=(/,/)/p' "$kit/kit" | tr -d '()' | sed 's/^packages=//'); do
  case $p in bubblewrap | ccache) continue ;; esac
  grep -qw -- "$p" "$root/source/setup.sh" || fail "setup.sh does not install $p, which ./kit installs"
done

echo "== setup.sh"
LABKIT_AUTOGRADER_ROOT="$root" LABKIT_SETUP_SKIP_APT=1 bash "$root/source/setup.sh" \
  >"$work/setup.log" 2>&1 || { tail -40 "$work/setup.log"; fail "setup.sh failed"; }

# grade NAME FILES...: runs run_autograder on FILES and prints, from results.json: the score, the
# correctness points available, 1 if all of them were given, 1 if every speed test says
# "not measured".
grade() {
  local name=$1
  shift
  rm -rf "$root/submission" "$root/results"
  mkdir -p "$root/submission"
  [ $# -gt 0 ] && cp "$@" "$root/submission/"
  LABKIT_AUTOGRADER_ROOT="$root" bash "$root/run_autograder" >"$work/$name.log" 2>&1 || true
  [ -f "$root/results/results.json" ] || { cat "$work/$name.log"; fail "$name: no results.json"; }
  python3 - "$root/results/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
tests = r["tests"]
speed = [t for t in tests if t["name"].startswith("speed")]
others = [t for t in tests if not t["name"].startswith("speed")]
full = all(t.get("score", 0) == t.get("max_score", 0) for t in others)
print(r["score"], sum(t.get("max_score", 0) for t in others), int(full),
      int(all("not measured" in t.get("output", "") for t in speed)))
PY
}

for lab in $labs; do
  "$labgrade" gradescope-bundle "$lab" --out "$work/bundle-$lab" >/dev/null
  rm -rf "$work/unpacked"
  python3 -m zipfile -e "$work/bundle-$lab/autograder.zip" "$work/unpacked"
  grep -q " $lab " "$work/unpacked/run_autograder" || fail "$lab: run_autograder grades another lab"
  cp "$work/unpacked/run_autograder" "$root/run_autograder"  # where Gradescope puts it

  echo "== $lab: solution"
  read -r score max full speed_not_measured < <(grade solution "$kit/solutions/$lab/"*)
  echo "score $score of $max correctness points"
  [ "$full" = 1 ] || fail "$lab: the reference solution lost points: $(cat "$work/solution.log")"
  [ "$speed_not_measured" = 1 ] || fail "$lab: speed should be 'not measured' without a GPU"
  awk -v s="$score" -v m="$max" 'BEGIN { exit !(s == m && m > 0) }' ||
    fail "$lab: score $score, expected $max"

  echo "== $lab: starter"
  read -r score _ full _ < <(grade starter "$kit/starter/$lab/"*)
  echo "score $score"
  [ "$full" = 0 ] || fail "$lab: the starter got every correctness point"

  echo "== $lab: empty submission"
  read -r score _ _ _ < <(grade empty)
  echo "score $score"
  awk -v s="$score" 'BEGIN { exit !(s == 0) }' || fail "$lab: an empty submission scored $score"
  file=$(basename "$(ls "$kit/starter/$lab/"* | head -1)")
  grep -q "$file" "$root/results/results.json" || fail "$lab: the empty submission's message names no $file"
done
echo "ok"
