#include "transfer_log.h"

#include "capture_window.h"

namespace labkit {

using TransferWindow = CaptureWindow<TransferRecord>;

TransferKind CopyKind(MemorySide from, MemorySide to) {
  if (from == MemorySide::kDevice)
    return to == MemorySide::kDevice ? TransferKind::kDeviceToDevice : TransferKind::kDeviceToHost;
  return to == MemorySide::kDevice ? TransferKind::kHostToDevice : TransferKind::kHostToHost;
}

const char* TransferKindName(TransferKind kind) {
  switch (kind) {
    case TransferKind::kHostToDevice:
      return "host_to_device";
    case TransferKind::kDeviceToHost:
      return "device_to_host";
    case TransferKind::kDeviceToDevice:
      return "device_to_device";
    case TransferKind::kHostToHost:
      return "host_to_host";
    case TransferKind::kHostAllocation:
      return "host_allocation";
    case TransferKind::kManagedAllocation:
      return "managed_allocation";
  }
  return "?";
}

TransferCapture::TransferCapture() { TransferWindow::open(); }

TransferCapture::~TransferCapture() { TransferWindow::close(); }

std::vector<TransferRecord> TransferCapture::take() { return TransferWindow::take(); }

bool CapturingTransfers() { return TransferWindow::capturing(); }

void RecordTransfer(TransferRecord record) { TransferWindow::add(std::move(record)); }

}  // namespace labkit
