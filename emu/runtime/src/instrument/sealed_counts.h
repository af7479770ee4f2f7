// The counts of every counted launch, sealed as it ends (core/sealed_tables.h: pages no kernel can
// write). The harness's own record of a launch (its LaunchRecord, on the heap) stays in reach of
// the kernels launched after it until the case's response line is written, so the harness takes
// the counts of a case's launches from here when it writes that line
// (labkit_emu/access_counts.h, sealed_counts_of_case).
#pragma once

#include "labkit_emu/access_counts.h"

namespace emu::detail {

// Appends one counted launch's counts. Not thread-safe: launches run one at a time.
void seal_launch_counts(const AccessCounts& counts);

}  // namespace emu::detail
