#!/usr/bin/env python3
"""Where grading time goes: sums a LABKIT_TRACE_COMMANDS file (wall seconds<TAB>CPU seconds<TAB>
command; older traces lack the CPU column) by kind of command, largest first. CPU time well below
wall time means the commands mostly waited. Usage: trace_summary.py TRACE [SUBMISSIONS]"""
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
    totals, cpu, counts = {}, {}, {}
    for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
        fields = line.split("\t", 2)
        seconds, command = fields[0], fields[-1]
        kind = next((k for k, pattern in KINDS if re.search(pattern, command)), "other")
        totals[kind] = totals.get(kind, 0.0) + float(seconds)
        if len(fields) == 3:
            cpu[kind] = cpu.get(kind, 0.0) + float(fields[1])
        counts[kind] = counts.get(kind, 0) + 1
    per = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    print(f"{'command':40} {'runs':>6} {'total s':>9} {'mean s':>8} {'mean CPU s':>10}"
          f" {'s per submission':>17}")
    for kind in sorted(totals, key=totals.get, reverse=True):
        n = counts[kind]
        mean_cpu = f"{cpu[kind] / n:10.2f}" if kind in cpu else f"{'-':>10}"
        print(f"{kind:40} {n:6d} {totals[kind]:9.1f} {totals[kind] / n:8.2f} {mean_cpu}"
              f" {totals[kind] / per:17.2f}")
    print(f"{'all':40} {sum(counts.values()):6d} {sum(totals.values()):9.1f}")


if __name__ == "__main__":
    main()
