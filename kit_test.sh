#!/usr/bin/env bash
# ./kit's own logic, with cmake, ctest and dpkg-query replaced by scripts that log what they were
# asked (so it runs in a second): a configure that failed once is redone, `check` builds only what
# grading needs, `test` builds everything.
set -euo pipefail
kit="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/kit"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/bin"
export LABKIT_BUILD_DIR="$scratch/build" LOG="$scratch/log" FAIL="$scratch/fail_configure"
export PATH="$scratch/bin:$PATH"

cat >"$scratch/bin/dpkg-query" <<'SH'
#!/bin/sh
echo "install ok installed"
SH
cat >"$scratch/bin/cmake" <<'SH'
#!/usr/bin/env bash
echo "cmake $*" >>"$LOG"
if [ "$1" = "-S" ]; then
  mkdir -p "$LABKIT_BUILD_DIR" && touch "$LABKIT_BUILD_DIR/CMakeCache.txt"
  [ -f "$FAIL" ] && exit 1       # as CMake does: the cache stays, the Makefile is never written
  touch "$LABKIT_BUILD_DIR/Makefile"
  exit 0
fi
# --build: make's own words when there is no Makefile.
[ -f "$LABKIT_BUILD_DIR/Makefile" ] || { echo "make: *** No rule to make target 'Makefile'" >&2; exit 2; }
mkdir -p "$LABKIT_BUILD_DIR/grader/app"
printf '#!/bin/sh\necho "labgrade $*"\n' >"$LABKIT_BUILD_DIR/grader/app/labgrade"
chmod +x "$LABKIT_BUILD_DIR/grader/app/labgrade"
SH
printf '#!/bin/sh\necho "ctest $*"\n' >"$scratch/bin/ctest"
chmod +x "$scratch/bin/"*

fail() { echo "FAIL: $*" >&2; echo "--- log:" >&2; cat "$LOG" >&2; exit 1; }
configures() { grep -c -- "^cmake -S" "$LOG" || true; }

# 1. The first configure fails: ./kit fails, and leaves a CMakeCache.txt behind.
touch "$FAIL"
if "$kit" check 03_tiled_matmul >/dev/null 2>&1; then fail "a failed configure was not reported"; fi
[ -f "$LABKIT_BUILD_DIR/CMakeCache.txt" ] || fail "the fake configure left no cache"

# 2. Fixed: the next ./kit configures again (the cache alone is not a build) and grades.
rm "$FAIL"
out="$("$kit" check 03_tiled_matmul --src me 2>/dev/null)" || fail "./kit check failed after a failed configure"
[ "$(configures)" = 2 ] || fail "expected a second configure"
[ "$out" = "labgrade check 03_tiled_matmul --src me" ] || fail "unexpected output: $out"

# 3. check builds what grading needs, never the tests; no configure once the build files exist.
grep -q -- "--build .* --target labkit_grading$" "$LOG" || fail "check did not build labkit_grading alone"
"$kit" check 03_tiled_matmul >/dev/null 2>&1 || fail "second ./kit check failed"
[ "$(configures)" = 2 ] || fail "configured again although the build files exist"

# 4. test builds everything, then runs ctest.
out="$("$kit" test 2>/dev/null)" || fail "./kit test failed"
[ "$(tail -1 "$LOG")" = "cmake --build $LABKIT_BUILD_DIR -j $(nproc)" ] || fail "test did not build everything"
case "$out" in ctest*) ;; *) fail "test did not run ctest: $out" ;; esac
echo "kit_test: ok"
