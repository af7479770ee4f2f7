#!/usr/bin/env python3
"""What the GPU was doing while a batch ran, from a LABKIT_TRACE_COMMANDS file with start times
(grader/process/command_trace.h): how long the batch took, how many GPU processes ran at once on
average, how long none ran, how long a timed run held the GPU, and how long jobs stood waiting at
the GPU gate for a shared or a timed run. Usage: trace_timeline.py TRACE [JOBS]"""
import re
import sys

from trace_summary import read_trace

# A process with a CUDA context: the harness or the kit's replay program run on a request (not the
# nm, objcopy and nvcc link commands that name the same files), under a tool or bare.
GPU_PROCESS = re.compile(r"compute-sanitizer |(^|\s|/)ncu |/(harness|kit_replay) (--record |--replay )?\S*request\.json")
TIMED = re.compile(r"/(harness|kit_replay) .*/speed")


def covered(intervals):
    """Seconds covered by the union of (start, end) intervals."""
    total, reach = 0.0, None
    for start, end in sorted(intervals):
        if reach is None or start > reach:
            total += end - start
            reach = end
        elif end > reach:
            total += end - reach
            reach = end
    return total


def main():
    events = [(s, w, c) for w, _, s, c in read_trace(sys.argv[1]) if s is not None]
    if not events:
        sys.exit("no start times in this trace (made before command_trace.h)")
    jobs = int(sys.argv[2]) if len(sys.argv) > 2 else None
    first = min(s for s, _, _ in events)
    last = max(s + w for s, w, _ in events)
    span = last - first
    # A replay a warm server ran (grader/process/warm_replays.h) is no process of its own.
    gpu = [(s, s + w) for s, w, c in events
           if GPU_PROCESS.search(c) and not c.startswith(("gpu ", "warm replay: "))]
    served = sum(1 for _, _, c in events if c.startswith("warm replay: "))
    # A timed run that takes turns (gpu_turns.h) holds the GPU alone only for its "gpu held alone"
    # events; any other holds it for its whole run.
    alone = [(s, s + w) for s, w, c in events if c.startswith("gpu held alone")]
    timed = alone + [(s, s + w) for s, w, c in events
                     if TIMED.search(c) and not c.startswith("gpu ") and not alone]
    turn = re.compile(r"^gpu gate wait, (shared|timed) turn:")  # inside kit_replay (gpu_turns.h)
    shared_waits = sum(w for _, w, c in events
                       if c.startswith("gpu gate wait, shared") and not turn.match(c))
    timed_waits = sum(w for _, w, c in events
                      if c.startswith("gpu gate wait, timed") and not turn.match(c))
    turn_waits = sum(w for _, w, c in events if turn.match(c))
    # While a timed run drains the GPU or holds it alone, no new shared run starts (gpu_gate.h).
    closed = covered(alone + [(s, s + w) for s, w, c in events if c.startswith("gpu gate wait, timed")])
    busy = covered(gpu)
    print(f"batch span                         {span:8.1f} s")
    print(f"GPU processes at once, on average  {sum(e - s for s, e in gpu) / span:8.2f}"
          f"   ({len(gpu)} processes; {served} replays served by warm ones)")
    print(f"no GPU process running             {span - busy:8.1f} s ({100 * (span - busy) / span:.0f}%)")
    print(f"a timed run holding the GPU        {covered(timed):8.1f} s ({len(timed)} runs)")
    print(f"timed runs waiting or holding it   {closed:8.1f} s ({100 * closed / span:.0f}%)")
    print(f"jobs waiting at the gate, shared   {shared_waits:8.1f} job-s"
          + (f" ({100 * shared_waits / (jobs * span):.0f}% of the jobs' time)" if jobs else ""))
    print(f"jobs waiting at the gate, timed    {timed_waits:8.1f} job-s")
    print(f"kit_replay waiting for its turns   {turn_waits:8.1f} job-s")


if __name__ == "__main__":
    main()
