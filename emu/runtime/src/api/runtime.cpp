#include "runtime.h"

#include <mutex>

#include "diagnostics.h"
#include "errors.h"
#include "faults.h"

namespace emu::detail {
void ensure_initialized() {
  static std::once_flag once;
  std::call_once(once, [] {
    open_report();
    install_fault_handlers();
  });
  ensure_alternate_signal_stack();
}

cudaError_t enter() {
  ensure_initialized();
  cudaError_t sticky = sticky_error();
  if (sticky != cudaSuccess) record(sticky);
  return sticky;
}
}  // namespace emu::detail
