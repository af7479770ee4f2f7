// The data the student's function moved between host and device, and the host-visible memory it
// set up, as the harness saw them. A matmul function gets A, B and C as device memory and the
// harness copies C back itself, so one that copies A and B to the host has computed the product on
// the CPU, whatever kernel it launched besides; the grader reads these records to say so.
//
// Filled by the backend wrappers (transfer_wrap_gpu.cu, transfer_hook_emu.cpp) through
// transfer_note.cuh, only while a TransferCapture is open.
#pragma once

#include <string>
#include <vector>

namespace labkit {

// Where one side of a copy lives. Managed memory counts as device memory here: setting it up is
// recorded on its own (kManagedAllocation).
enum class MemorySide { kHost, kDevice };

enum class TransferKind {
  kHostToDevice,
  kDeviceToHost,
  kDeviceToDevice,
  kDeviceToConstant,  // into a __constant__ variable from device memory
  kHostToHost,
  kHostAllocation,     // cudaMallocHost / cudaHostAlloc / cudaHostRegister: a kernel can write it
  kManagedAllocation,  // cudaMallocManaged: the host can read what a kernel wrote
};

TransferKind CopyKind(MemorySide from, MemorySide to);
// The protocol's name: "device_to_host", "host_allocation", ...
const char* TransferKindName(TransferKind kind);

struct TransferRecord {
  std::string call;  // the runtime function, e.g. "cudaMemcpy"
  TransferKind kind = TransferKind::kHostToDevice;
  unsigned long long bytes = 0;
};

// Records transfers while alive (one at a time), like LaunchCapture.
class TransferCapture {
 public:
  TransferCapture();
  ~TransferCapture();
  TransferCapture(const TransferCapture&) = delete;
  TransferCapture& operator=(const TransferCapture&) = delete;
  std::vector<TransferRecord> take();
};

// While alive, the open capture (if any) takes no records: the kit's replay program makes a copy
// of its own for a student's call that it notes itself (replay_executor.cu, SymbolWrite).
class UnnotedTransfers {
 public:
  UnnotedTransfers();
  ~UnnotedTransfers();
  UnnotedTransfers(const UnnotedTransfers&) = delete;
  UnnotedTransfers& operator=(const UnnotedTransfers&) = delete;

 private:
  bool was_capturing_;
};

// True while a capture is open: the wrappers look at pointers only then, so that the harness's
// own copies cost nothing extra.
bool CapturingTransfers();
void RecordTransfer(TransferRecord record);

}  // namespace labkit
