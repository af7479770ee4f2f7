#include "launch_coverage.h"

#include <cmath>
#include <cstdio>

#include "measured_technique.h"

namespace labkit {

namespace {

// "1", "0.25": the rule's figure as lab.yaml gave it.
std::string Figure(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string Threads(long long count) {
  return std::to_string(count) + (count == 1 ? " thread" : " threads");
}

// "your launch started", "your 3 launches started", or, at the harness's cap on listed launches,
// the first of them: the count is then only what the grader saw, and the message says so rather
// than claim it all.
std::string WhoStarted(std::size_t launches) {
  if (launches == 0) return "your function launched no kernel in it, so it started";
  if (launches >= kLaunchesListed)
    return "your first " + std::to_string(kLaunchesListed) +
           " launches (the most the grader lists for one call) started";
  if (launches == 1) return "your launch started";
  return "your " + std::to_string(launches) + " launches started";
}

}  // namespace

double ThreadsStarted(const std::vector<LaunchInfo>& launches) {
  double threads = 0;
  for (const LaunchInfo& l : launches)
    threads += static_cast<double>(l.grid[0]) * l.grid[1] * l.grid[2] * l.block[0] * l.block[1] *
               l.block[2];
  return threads;
}

std::string CheckThreadsPerElement(double per_element, const std::vector<LaunchInfo>& launches,
                                   const Shape& shape, const std::string& where) {
  const long long elements = shape.m * shape.k;
  // Whole threads: a rule of 0.25 a element asks 3 threads for 9 elements, not 2.25.
  const double needed = std::ceil(per_element * static_cast<double>(elements));
  const double started = ThreadsStarted(launches);
  if (started >= needed) return "";
  const std::string rule =
      per_element == 1
          ? "this exercise computes one element of C per thread, so it starts at least "
          : "this exercise starts at least " + Figure(per_element) +
                " threads per element of C, here at least ";
  // `started` is below `needed`, itself at most m x k: it prints as the integer it is.
  return WhoStarted(launches.size()) + " " + Threads(static_cast<long long>(started)) +
         " for the " + std::to_string(shape.m) + " x " + std::to_string(shape.k) + " = " +
         std::to_string(elements) + " elements of C " + where + "; " + rule +
         Threads(static_cast<long long>(needed));
}

}  // namespace labkit
