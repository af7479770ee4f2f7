#include "replay_recorder.h"

#include <cstring>
#include <map>
#include <mutex>
#include <set>

// The linker's names for the first and one-past-the-last byte of the program image.
extern "C" const char __executable_start[];
extern "C" const char _end[];

namespace labkit::replay {
namespace {

struct Region {
  uintptr_t begin = 0, end = 0;  // [begin, end) with the slack included
  uintptr_t base = 0;            // what offsets are measured from
};

// The process's device memory as the record knows it. Allocations live across captures: a
// function may keep a buffer from one call to the next; a plan that uses one allocates it afresh
// (its contents from earlier calls are exactly what the replay must not see).
struct Recorder {
  std::mutex mutex;
  bool open = false;
  Plan plan;
  std::map<int32_t, Region> regions;  // live regions by id
  int32_t next_region = kFirstAllocation;
  std::set<int32_t> allocated_in_plan;  // regions the current plan has an Alloc for
  std::vector<HostArray> host;          // the harness's host arrays of the current capture
  // The bytes last uploaded to each variable (image offset -> bytes at symbol offsets): a plan
  // starts by writing them, as a function may set its __constant__ data on its first call only.
  std::map<int64_t, std::map<uint64_t, std::vector<unsigned char>>> symbols;
  // What the current plan holds, against the limits the replay reads plans under, and what every
  // plan of this process held (replay_plan.h); `full` once the current plan reached a limit.
  std::size_t plan_bytes = 0;
  std::size_t recorded_bytes = 0;
  bool full = false;
};

Recorder& State() {
  static Recorder* recorder = new Recorder;  // never destroyed: wraps may run during exit
  return *recorder;
}

// About what `op` adds to the plan's file: its bytes and lists, and a bound on the rest.
std::size_t EncodedBytes(const Op& op) {
  constexpr std::size_t kFixedFields = 128;
  return kFixedFields + op.data.size() + op.note.size() +
         5 * (op.param_offsets.size() + op.pointer_params.size() + op.pointer_offsets.size()) +
         24 * op.relocations.size();
}

constexpr std::size_t kRoomForTheNote = 1024;

// Whether an operation of `bytes` in the plan's file, `data` of them host bytes, still fits in the
// plan and in what the process records.
bool Fits(const Recorder& r, std::size_t bytes, std::size_t data) {
  return r.plan.ops.size() + 2 <= kMaxOps && bytes <= kMaxRecordedBytes &&
         r.plan_bytes + bytes <= kMaxPlanBytes - kRoomForTheNote &&
         r.recorded_bytes + data <= kMaxRecordedBytes;
}

// The plan is full: its last operation says so, and nothing more is kept.
void Overflow(Recorder& r) {
  if (r.full) return;
  r.full = true;
  Op note;
  note.type = OpType::kUnsupported;
  note.note = "more work than the grader records (at most " + std::to_string(kMaxOps) +
              " calls of the CUDA API in one call of your function, and " +
              std::to_string(kMaxRecordedBytes >> 20) +
              " MiB of host bytes copied to the device in all its calls together)";
  r.plan.ops.push_back(std::move(note));
}

// Every operation goes into the plan here. A plan that reaches replay_plan.h's limits (operations
// in one plan, bytes in one plan and in all of the process's plans) ends there, with one note that
// says so, and keeps nothing after it: a function that uploads its own bytes over and over, or
// calls the API millions of times, would otherwise grow the record process's memory and write
// plan files of a gigabyte each, case after case, onto the grading machine's disk.
void Keep(Recorder& r, Op op) {
  if (r.full) return;
  const std::size_t bytes = EncodedBytes(op);
  if (!Fits(r, bytes, op.data.size())) return Overflow(r);
  r.plan_bytes += bytes;
  r.recorded_bytes += op.data.size();
  r.plan.ops.push_back(std::move(op));
}

void Unsupported(Recorder& r, std::string note) {
  Op op;
  op.type = OpType::kUnsupported;
  op.note = std::move(note);
  Keep(r, std::move(op));
}

// Region of `address`, and its offset; the caller holds the mutex.
Ref Locate(Recorder& r, const void* address) {
  const auto a = reinterpret_cast<uintptr_t>(address);
  for (const auto& [id, region] : r.regions)
    if (a >= region.begin && a < region.end)
      return Ref{id, static_cast<int64_t>(a) - static_cast<int64_t>(region.base)};
  return Ref{};
}

// A reference to a region from before this capture needs the region allocated in this plan.
Ref Use(Recorder& r, const void* address) {
  const Ref ref = Locate(r, address);
  if (ref.region >= kFirstAllocation && r.allocated_in_plan.insert(ref.region).second) {
    const Region& region = r.regions.at(ref.region);
    Op alloc;
    alloc.type = OpType::kAlloc;
    alloc.dst = Ref{ref.region, 0};
    alloc.bytes = region.end - region.begin;
    Keep(r, std::move(alloc));
  }
  return ref;
}

void StoreSymbolBytes(Recorder& r, int64_t image, uint64_t offset, const Op& upload) {
  r.symbols[image][offset] = upload.data;
}

template <class Fn>
void WhileRecording(Fn&& fn) {
  Recorder& r = State();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.open && !r.full) fn(r);
}

// The harness's host array holding all of [address, address + bytes), as (index, offset).
Ref LocateHost(const Recorder& r, const void* address, uint64_t bytes) {
  const auto a = reinterpret_cast<uintptr_t>(address);
  for (std::size_t i = 0; i < r.host.size(); ++i) {
    const auto begin = reinterpret_cast<uintptr_t>(r.host[i].data);
    if (a >= begin && bytes <= r.host[i].bytes && a - begin <= r.host[i].bytes - bytes)
      return Ref{static_cast<int32_t>(i), static_cast<int64_t>(a - begin)};
  }
  return Ref{};
}

// Where a copy's `op.bytes` come from: a device region the plan knows (`from_device`, replayed as
// a copy), one of the harness's host arrays (replayed from the replay's own array) or other host
// bytes (`from_host`, replayed as they were). False for device memory the plan does not know.
bool NoteSource(Recorder& r, Op& op, const void* src, bool src_device, OpType from_device,
                OpType from_host) {
  if (src_device) {
    op.type = from_device;
    op.src = Use(r, src);
    return op.src.known();
  }
  if (from_host == OpType::kUpload) {
    op.src = LocateHost(r, src, op.bytes);
    if (op.src.known()) {
      op.type = OpType::kHostUpload;
      return true;
    }
  }
  op.type = from_host;
  // Not copied at all when it cannot fit: a copy of gigabytes would be held in memory first.
  if (!Fits(r, op.bytes, op.bytes)) {
    Overflow(r);
    return true;
  }
  const auto* p = static_cast<const unsigned char*>(src);
  op.data.assign(p, p + op.bytes);
  return true;
}

}  // namespace

PlanCapture::PlanCapture(const HarnessMatrix& A, const HarnessMatrix& B, const HarnessMatrix& C,
                         std::vector<HostArray> host) {
  Recorder& r = State();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.plan = Plan{};
  r.plan_bytes = 0;
  r.full = false;
  r.allocated_in_plan.clear();
  r.host = std::move(host);
  int32_t id = kRegionA;
  for (const HarnessMatrix* m : {&A, &B, &C}) {
    const auto base = reinterpret_cast<uintptr_t>(m->data);
    r.regions[id++] = Region{base - m->slack, base + m->bytes + m->slack, base};
  }
  for (const auto& [image, parts] : r.symbols)
    for (const auto& [offset, bytes] : parts) {
      Op op;
      op.type = OpType::kSymbolUpload;
      op.image = image;
      op.symbol_offset = offset;
      op.data = bytes;
      Keep(r, std::move(op));
    }
  r.open = true;
}

PlanCapture::~PlanCapture() {
  Recorder& r = State();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.open = false;
  r.host.clear();
  for (int32_t id : {kRegionA, kRegionB, kRegionC}) r.regions.erase(id);
}

Plan PlanCapture::take() {
  Recorder& r = State();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.plan;
}

bool Recording() {
  Recorder& r = State();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.open;
}

void NoteAlloc(const void* ptr, uint64_t bytes) {
  // Allocations are tracked whether or not a capture is open: a buffer made on an earlier call
  // (or before the first) may be used by a later one.
  if (ptr == nullptr) return;
  Recorder& r = State();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto base = reinterpret_cast<uintptr_t>(ptr);
  const int32_t id = r.next_region++;
  r.regions[id] = Region{base, base + bytes, base};
  if (!r.open) return;
  r.allocated_in_plan.insert(id);
  Op op;
  op.type = OpType::kAlloc;
  op.dst = Ref{id, 0};
  op.bytes = bytes;
  Keep(r, std::move(op));
}

void NoteFree(const void* ptr) {
  Recorder& r = State();
  std::lock_guard<std::mutex> lock(r.mutex);
  // By its exact start among the allocations: the harness's own matrices overlap theirs.
  const auto base = reinterpret_cast<uintptr_t>(ptr);
  for (auto it = r.regions.lower_bound(kFirstAllocation); it != r.regions.end(); ++it) {
    if (it->second.base != base) continue;
    if (r.open && r.allocated_in_plan.count(it->first) > 0) {
      Op op;
      op.type = OpType::kFree;
      op.dst = Ref{it->first, 0};
      Keep(r, std::move(op));
    }
    r.regions.erase(it);
    return;
  }
}

void NoteMemset(const void* dst, int value, uint64_t bytes) {
  WhileRecording([&](Recorder& r) {
    Op op;
    op.type = OpType::kMemset;
    op.dst = Use(r, dst);
    if (!op.dst.known()) return Unsupported(r, "cudaMemset of memory the grader does not know");
    op.value = value;
    op.bytes = bytes;
    Keep(r, std::move(op));
  });
}

void NoteCopy(void* dst, bool dst_device, const void* src, bool src_device, uint64_t bytes) {
  WhileRecording([&](Recorder& r) {
    if (!dst_device) {
      // To the host: no effect on the device, unless it lands in one of the harness's host arrays,
      // where the replay must put what the device holds then (the function's result).
      const Ref into = LocateHost(r, dst, bytes);
      if (!into.known() || !src_device) return;
      Op op;
      op.type = OpType::kHostDownload;
      op.dst = into;
      op.bytes = bytes;
      op.src = Use(r, src);
      if (!op.src.known())
        return Unsupported(r, "a copy from device memory the grader does not know");
      Keep(r, std::move(op));
      return;
    }
    Op op;
    op.dst = Use(r, dst);
    if (!op.dst.known())
      return Unsupported(r, "a copy into device memory the grader does not know");
    op.bytes = bytes;
    if (!NoteSource(r, op, src, src_device, OpType::kCopy, OpType::kUpload))
      return Unsupported(r, "a copy from device memory the grader does not know");
    Keep(r, std::move(op));
  });
}

void NoteSymbolCopy(const void* symbol, uint64_t offset, const void* src, bool src_device,
                    uint64_t bytes) {
  WhileRecording([&](Recorder& r) {
    Op op;
    op.image = ImageOffset(symbol);
    if (op.image < 0) return Unsupported(r, "a copy to a variable outside the program");
    op.symbol_offset = offset;
    op.bytes = bytes;
    if (!NoteSource(r, op, src, src_device, OpType::kSymbolCopy, OpType::kSymbolUpload))
      return Unsupported(r, "a copy from device memory the grader does not know");
    if (!src_device && !r.full) StoreSymbolBytes(r, op.image, offset, op);
    Keep(r, std::move(op));
  });
}

void NoteLaunch(const LaunchNote& launch) {
  WhileRecording([&](Recorder& r) {
    Op op;
    op.type = OpType::kLaunch;
    op.image = ImageOffset(launch.kernel);
    if (op.image < 0) return Unsupported(r, "a launch of a kernel outside the program");
    if (launch.arguments.size() > kMaxLaunchArgumentBytes)
      return Unsupported(r, "a launch with more argument bytes than CUDA allows");
    std::copy(launch.grid, launch.grid + 3, op.grid);
    std::copy(launch.block, launch.block + 3, op.block);
    op.shared_bytes = launch.shared_bytes;
    op.data = launch.arguments;
    op.param_offsets = launch.param_offsets;
    op.pointer_params = launch.pointer_params;
    op.pointer_offsets = launch.pointer_offsets;
    if (launch.runner != nullptr) op.runner = ImageOffset(launch.runner);
    // Every aligned pointer-sized word that holds an address the replay must translate.
    for (uint32_t at = 0; at + sizeof(uintptr_t) <= op.data.size(); at += sizeof(uintptr_t)) {
      uintptr_t word = 0;
      std::memcpy(&word, op.data.data() + at, sizeof word);
      if (word == 0) continue;
      const void* address = reinterpret_cast<const void*>(word);
      const Ref device = Use(r, address);
      if (device.known()) {
        op.relocations.push_back({at, device, -1});
      } else if (const int64_t image = ImageOffset(address); image >= 0) {
        op.relocations.push_back({at, Ref{}, image});
      }
    }
    Keep(r, std::move(op));
  });
}

void NoteFuncAttribute(const void* kernel, int attribute, int64_t value) {
  WhileRecording([&](Recorder& r) {
    Op op;
    op.type = OpType::kFuncAttribute;
    op.image = ImageOffset(kernel);
    if (op.image < 0) return Unsupported(r, "cudaFuncSetAttribute on a kernel outside the program");
    op.value = attribute;
    op.attribute_value = value;
    Keep(r, std::move(op));
  });
}

void NoteUnsupported(const char* call) {
  WhileRecording([&](Recorder& r) { Unsupported(r, call); });
}

int64_t ImageOffset(const void* address) {
  const auto a = reinterpret_cast<uintptr_t>(address);
  const auto begin = reinterpret_cast<uintptr_t>(__executable_start);
  const auto end = reinterpret_cast<uintptr_t>(_end);
  return a >= begin && a < end ? static_cast<int64_t>(a - begin) : -1;
}

const void* ImageAddress(int64_t offset) {
  const auto begin = reinterpret_cast<uintptr_t>(__executable_start);
  const auto end = reinterpret_cast<uintptr_t>(_end);
  if (offset < 0 || static_cast<uintptr_t>(offset) >= end - begin) return nullptr;
  return reinterpret_cast<const void*>(begin + static_cast<uintptr_t>(offset));
}

}  // namespace labkit::replay
