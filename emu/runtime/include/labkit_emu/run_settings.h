// The emulator's run settings, set by the program that hosts it once it knows them. labgrade's
// harness learns them from its request: a setting passed in the environment
// (LABKIT_EMU_ORDER, LABKIT_EMU_THREADS, LABKIT_EMU_COUNT_ACCESSES; docs/DESIGN.md) reaches every
// constructor of the student's code as envp, before any of the kit's code runs, and would tell it
// which of labgrade's checks is running (docs/THREAT_MODEL.md). The environment still sets them
// where a program is run by hand; these override it from the call on, for the launches after.
//
// Not part of the force-included header: the harness sets them, student code never needs to.
#pragma once

namespace emu {

// "forward", "reverse" or "random:SEED" (LABKIT_EMU_ORDER's values); false, and the order kept,
// for anything else.
bool set_thread_order(const char* order);
// The OS threads that run a launch's blocks (LABKIT_EMU_THREADS); 0 counts as 1.
void set_worker_threads(unsigned threads);
// Whether each launch's memory accesses are counted (LABKIT_EMU_COUNT_ACCESSES=1).
void set_count_accesses(bool on);

}  // namespace emu
