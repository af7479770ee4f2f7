#include "transfer_log.h"

#include "capture_window.h"
#include "harness_protocol.h"

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
      return transfer_kind::kHostToDevice;
    case TransferKind::kDeviceToHost:
      return transfer_kind::kDeviceToHost;
    case TransferKind::kDeviceToDevice:
      return transfer_kind::kDeviceToDevice;
    case TransferKind::kDeviceToConstant:
      return transfer_kind::kDeviceToConstant;
    case TransferKind::kHostToHost:
      return transfer_kind::kHostToHost;
    case TransferKind::kHostAllocation:
      return transfer_kind::kHostAllocation;
    case TransferKind::kManagedAllocation:
      return transfer_kind::kManagedAllocation;
  }
  return "?";
}

TransferCapture::TransferCapture() { TransferWindow::open(); }

TransferCapture::~TransferCapture() { TransferWindow::close(); }

std::vector<TransferRecord> TransferCapture::take() { return TransferWindow::take(); }

bool CapturingTransfers() { return TransferWindow::capturing(); }

UnnotedTransfers::UnnotedTransfers() : was_capturing_(TransferWindow::pause()) {}
UnnotedTransfers::~UnnotedTransfers() { TransferWindow::resume(was_capturing_); }

void RecordTransfer(TransferRecord record) { TransferWindow::add(std::move(record)); }

}  // namespace labkit
