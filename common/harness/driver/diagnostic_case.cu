#include <cuda_runtime.h>

#include "diagnostic_case.h"

namespace labkit {

void NoteDiagnosticCase(const std::string& id) {
#ifdef LABKIT_EMU
  emu::set_diagnostic_case(id.c_str());
#else
  (void)id;
#endif
}

}  // namespace labkit
