// `labgrade starter`: writes (or checks) starter/<lab>/ from solutions/<lab>/.
#pragma once

#include <string>

#include "lab_spec.h"
#include "result.h"

namespace labkit {

// With `check_only`, nothing is written and an error lists every file that differs.
Status SyncStarter(const std::string& source_dir, const LabSpec& spec, bool check_only);

}  // namespace labkit
