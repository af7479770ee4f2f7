// A query exercise's kernels judged by what they did (lab.yaml `measured` on a `kind: query`
// exercise, core/lab_spec.h QueryMeasured): the accesses of every launch of one counted case,
// summed and divided by the case's element count, against the rule's limits. Lab 02's staged
// float3 kernel must take each float of a point through shared memory, and through global memory
// once each way; a copy of the direct kernel under the staged name reads no shared memory at all.
#pragma once

#include <string>
#include <vector>

#include "harness_runner.h"
#include "lab_spec.h"

namespace labkit {

// "" when the launches' counts satisfy `rule`, else the student-facing reason with the measured
// figures. `barriers_counted`: false on a GPU, which has no counter of barriers passed (the rule's
// executes_barrier is then not checked).
std::string CheckQueryMeasured(const QueryMeasured& rule, const std::vector<LaunchInfo>& launches,
                               bool barriers_counted);

}  // namespace labkit
