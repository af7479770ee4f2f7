// What of the linked harness a replay may use on the student's behalf (common/harness/
// replay_executor.h): the student's own kernels, their variables and, on the CPU backend, the
// emulator's closure runners, as (offset in the program image, size) pairs read with nm from the
// student's objects and the program labgrade linked. The replay checks every recorded launch and
// variable write against these lists, so a plan (written in a process the student's code ran in)
// cannot reach the kit's own code or data.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "process.h"

namespace labkit {

// From nm's output (`nm -S --defined-only`) for each object and for the executable:
// {"kernels": [[offset, size]...], "runners": [...], "variables": [...]}. A name the executable
// holds more than once is left out (it could be the kit's), except the runners, which are the
// emulator's own template whichever object instantiated it.
nlohmann::json StudentImageFromNm(const std::vector<std::string>& object_listings,
                                  const std::string& executable_listing);

// Runs nm; writes the lists to `path` (beside the executable). "" or why not.
std::string WriteStudentImage(ProcessRunner& runner, const std::vector<std::string>& objects,
                              const std::string& executable, const std::string& path);

}  // namespace labkit
