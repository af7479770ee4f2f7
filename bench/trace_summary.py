#!/usr/bin/env python3
"""Where grading time goes: sums a LABKIT_TRACE_COMMANDS file (wall seconds<TAB>CPU seconds<TAB>
start<TAB>command, grader/process/command_trace.h; older traces lack the start or the CPU column)
by kind of command, largest first. CPU time well below wall time means the commands mostly waited.
Waits for a GPU in a batch (gpu gate), and the kit replay program's turns at it, are listed as
kinds of their own and left out of the commands' total.
Usage: trace_summary.py TRACE [SUBMISSIONS]"""
import re
import sys

# First match wins; the command line may start with the sandbox's own wrapper.
KINDS = [
    # The kit's replay program takes turns inside its run (gpu_turns.h): these lie within its own
    # wall time, not between commands.
    ("gpu turn wait, timed (in kit_replay)", r"^gpu gate wait, timed turn"),
    ("gpu turn wait, shared (in kit_replay)", r"^gpu gate wait, shared turn"),
    ("gpu held alone, timed turn", r"^gpu held alone"),
    ("gpu gate wait, timed run", r"^gpu gate wait, timed"),
    ("gpu gate wait, shared run", r"^gpu gate wait, shared"),
    # A warm replay server's whole life (grader/process/warm_replays.h): its requests are listed
    # one by one below, so its life is left out of the total as the waits are.
    ("gpu warm replay server, its life", r"/kit_replay --serve"),
    ("timed replay, warm process", r"^warm replay: .*/speed"),
    ("replay, warm process", r"^warm replay: "),
    ("compute-sanitizer memcheck", r"compute-sanitizer .*--tool memcheck"),
    ("compute-sanitizer racecheck", r"compute-sanitizer .*--tool racecheck"),
    ("nvcc -ptx (constant-memory check)", r"nvcc .*-ptx "),
    ("nvcc compile, resource report only", r"nvcc .*-Xptxas -v .*-o /dev/null"),
    ("nvcc compile, default build", r"nvcc .*-Xptxas -v"),
    ("nvcc compile, -fmad=false build", r"nvcc .*-fmad=false"),
    ("nvcc compile, default build", r"nvcc -c "),
    ("nvcc link", r"nvcc .*--wrap"),
    ("c++ link (CPU backend)", r"c\+\+ -o .*--wrap"),
    ("emu compile", r"emu-cxx "),
    ("nm symbol check", r"(^|\s|/)nm "),
    ("objcopy, device code cut out", r"(^|\s|/)objcopy .*\.nv_fatbin"),
    ("Nsight Compute counting run", r"(^|\s|/)ncu "),
    ("timed harness run", r"/(harness|kit_replay) .*/speed"),
    ("record run", r"/harness --record "),
    ("replay, the kit's program", r"/kit_replay "),
    ("harness run", r"/harness "),
]


def read_trace(path):
    """(wall, cpu or None, start or None, command) per line, whichever columns the trace has."""
    for line in open(path, encoding="utf-8", errors="replace"):
        fields = line.rstrip("\n").split("\t", 3)
        numbers = []
        while len(fields) > 1 and len(numbers) < 3 and re.fullmatch(r"[0-9.]+", fields[0]):
            numbers.append(float(fields.pop(0)))
        command = "\t".join(fields)
        cpu = numbers[1] if len(numbers) > 1 else None
        start = numbers[2] if len(numbers) > 2 else None
        yield numbers[0], cpu, start, command


def main():
    totals, cpu, counts = {}, {}, {}
    for seconds, cpu_seconds, _, command in read_trace(sys.argv[1]):
        kind = next((k for k, pattern in KINDS if re.search(pattern, command)), "other")
        totals[kind] = totals.get(kind, 0.0) + seconds
        if cpu_seconds is not None:
            cpu[kind] = cpu.get(kind, 0.0) + cpu_seconds
        counts[kind] = counts.get(kind, 0) + 1
    per = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    print(f"{'command':40} {'runs':>6} {'total s':>9} {'mean s':>8} {'mean CPU s':>10}"
          f" {'s per submission':>17}")
    for kind in sorted(totals, key=totals.get, reverse=True):
        n = counts[kind]
        mean_cpu = f"{cpu[kind] / n:10.2f}" if kind in cpu else f"{'-':>10}"
        print(f"{kind:40} {n:6d} {totals[kind]:9.1f} {totals[kind] / n:8.2f} {mean_cpu}"
              f" {totals[kind] / per:17.2f}")
    commands = [k for k in counts if not k.startswith("gpu ")]
    print(f"{'all commands':40} {sum(counts[k] for k in commands):6d}"
          f" {sum(totals[k] for k in commands):9.1f}")


if __name__ == "__main__":
    main()
