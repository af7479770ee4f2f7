// LABKIT_TRACE_COMMANDS=FILE: where grading time goes, one line per event, for
// bench/trace_summary.py and bench/trace_timeline.py. A line is tab-separated: the event's
// wall-clock seconds, the CPU seconds it used (its process and the children it waited for), when
// it started (seconds since the epoch, so that the lines of a batch's parallel jobs make one
// timeline), and what it was. Events are the commands labgrade ran and the waits for a GPU in a
// batch (gpu_gate.h), which show where jobs stood idle. A trace is a convenience: a line that
// cannot be written is dropped, never an error of the grading.
#pragma once

#include <string>

namespace labkit {

// Seconds since the epoch, now (the clock the trace's start column uses).
double TraceClock();

// Appends one line when LABKIT_TRACE_COMMANDS names a file; does nothing otherwise.
void TraceEvent(double seconds, double cpu_seconds, double started, const std::string& what);

}  // namespace labkit
