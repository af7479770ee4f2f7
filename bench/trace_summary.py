#!/usr/bin/env python3
"""Where grading time goes: sums a LABKIT_TRACE_COMMANDS file (seconds<TAB>command) by kind of
command, largest first. Usage: trace_summary.py TRACE [SUBMISSIONS]"""
import re
import sys

# First match wins; the command line may start with the sandbox's own wrapper.
KINDS = [
    ("compute-sanitizer memcheck", r"compute-sanitizer .*--tool memcheck"),
    ("compute-sanitizer racecheck", r"compute-sanitizer .*--tool racecheck"),
    ("nvcc -ptx (constant-memory check)", r"nvcc .*-ptx "),
    ("nvcc compile, resource report only", r"nvcc .*-Xptxas -v .*-o /dev/null"),
    ("nvcc compile, default build", r"nvcc .*-Xptxas -v"),
    ("nvcc compile, -fmad=false build", r"nvcc .*-fmad=false"),
    ("nvcc link", r"nvcc .*--wrap"),
    ("c++ link (CPU backend)", r"c\+\+ -o .*--wrap"),
    ("emu compile", r"emu-cxx "),
    ("nm symbol check", r"(^|\s|/)nm "),
    ("timed harness run", r"/harness .*/speed"),
    ("harness run", r"/harness "),
]


def main():
    totals, counts = {}, {}
    for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
        seconds, _, command = line.partition("\t")
        kind = next((k for k, pattern in KINDS if re.search(pattern, command)), "other")
        totals[kind] = totals.get(kind, 0.0) + float(seconds)
        counts[kind] = counts.get(kind, 0) + 1
    per = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    print(f"{'command':40} {'runs':>6} {'total s':>9} {'mean s':>8} {'s per submission':>17}")
    for kind in sorted(totals, key=totals.get, reverse=True):
        print(f"{kind:40} {counts[kind]:6d} {totals[kind]:9.1f} {totals[kind] / counts[kind]:8.2f}"
              f" {totals[kind] / per:17.2f}")
    print(f"{'all':40} {sum(counts.values()):6d} {sum(totals.values()):9.1f}")


if __name__ == "__main__":
    main()
