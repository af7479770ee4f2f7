#include "transfer_check.h"

#include <utility>

namespace labkit {

bool ExposesDeviceDataToHost(const TransferInfo& t) {
  return t.kind == transfer_kind::kDeviceToHost || t.kind == transfer_kind::kHostAllocation ||
         t.kind == transfer_kind::kManagedAllocation;
}

namespace {

std::string KindText(const std::string& kind) {
  if (kind == transfer_kind::kDeviceToHost) return "device to host";
  if (kind == transfer_kind::kHostAllocation) return "host memory a kernel can write";
  if (kind == transfer_kind::kManagedAllocation) return "managed memory the host can read";
  return kind;
}

// "cudaMemcpy, device to host, 2 calls, 6728 bytes": one entry per call and kind, in order.
std::string Summary(const std::vector<TransferInfo>& transfers) {
  struct Entry {
    const TransferInfo* first;
    int calls = 0;
    long long bytes = 0;
  };
  std::vector<Entry> entries;
  for (const TransferInfo& t : transfers) {
    if (!ExposesDeviceDataToHost(t)) continue;
    Entry* e = nullptr;
    for (Entry& seen : entries)
      if (seen.first->call == t.call && seen.first->kind == t.kind) e = &seen;
    if (e == nullptr) e = &entries.emplace_back(Entry{&t});
    ++e->calls;
    e->bytes += t.bytes;
  }
  std::string text;
  for (const Entry& e : entries) {
    text += (text.empty() ? "" : "; ") + e.first->call + ", " + KindText(e.first->kind) + ", ";
    text += e.calls == 1 ? "1 call" : std::to_string(e.calls) + " calls";
    text += ", " + std::to_string(e.bytes) + " bytes";
  }
  return text;
}

}  // namespace

std::string HostTransferFailure(const std::string& function, const std::vector<CaseRun>& cases) {
  for (const CaseRun& c : cases) {
    const std::string summary = Summary(c.transfers);
    if (summary.empty()) continue;
    // No closing full stop: the report puts this after "The results are right, but " and ends
    // the sentence itself.
    return function + " gave the host access to device data while it ran (" + summary +
           "): the product must be computed by your kernels on the GPU. A, B and C are already "
           "device memory and the grader copies C back itself; copying A and B to the host, or "
           "setting up memory both sides can reach, lets the CPU do the work whatever kernel "
           "runs besides, so remove those calls and compute C in your kernel";
  }
  return "";
}

}  // namespace labkit
