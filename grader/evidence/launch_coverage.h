// Whether an exercise's launches started enough threads for the product they computed (lab.yaml
// `technique.min_threads_per_element_of_c`): lab 01 teaches one thread per element of C, and a
// kernel that runs the host's triple loop in one thread computes the same values without it. The
// count is grid x block summed over every launch of one case, from the harness's launch records,
// which both backends fill with the configuration the launch asked for.
#pragma once

#include <string>
#include <vector>

#include "harness_runner.h"
#include "lab_spec.h"

namespace labkit {

// Every thread the launches of one case asked for: grid x block, summed over `launches`. A double,
// which no configuration overflows (a grid of 2^31 x 65535 x 65535 blocks of 1024 threads does a
// 64-bit integer), and exact for any count a case could need.
double ThreadsStarted(const std::vector<LaunchInfo>& launches);

// "" when `launches` (one case's, of a product of `shape`) started at least `per_element` threads
// for each of the m x k elements of C, else the student-facing reason, naming the case as `where`
// ("in case 16x16x16 (m x n x k)"). More threads than elements pass: a grid rounded up to whole
// blocks, or a grid-stride loop, has threads with nothing to do.
std::string CheckThreadsPerElement(double per_element, const std::vector<LaunchInfo>& launches,
                                   const Shape& shape, const std::string& where);

}  // namespace labkit
