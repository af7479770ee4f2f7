#include "build_plan.h"

namespace labkit {

bool NoFmaBuildNeeded(Backend backend, const BuildOutcome& default_build) {
  if (!default_build.ok) return false;
  return !(Traits(backend).fma_seen_in_object && default_build.free_of_fma);
}

BuildOutcome NoFmaFromDefault(const BuildOutcome& default_build) {
  BuildOutcome same = default_build;
  same.reuses_default = true;
  return same;
}

}  // namespace labkit
