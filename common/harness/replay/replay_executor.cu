#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

#include "initial_device_state.h"
#include "labkit/cuda_check.cuh"
#include "replay_executor.h"
#ifndef __LABKIT_EMU__
#include "param_layout_gpu.cuh"
#include "student_device_code.h"
#include "transfer_note.cuh"
#endif


namespace labkit::replay {
namespace {


bool Starts(const std::vector<ImageRange>& ranges, int64_t offset) {
  return std::any_of(ranges.begin(), ranges.end(),
                     [&](const ImageRange& r) { return r.offset == offset; });
}

// The range that starts at `offset`: a plan names a variable by its start. (Variables can lie
// back to back, so the range that merely covers `offset` can be the one before it, ending there.)
const ImageRange* StartingAt(const std::vector<ImageRange>& ranges, int64_t offset) {
  for (const ImageRange& r : ranges)
    if (r.offset == offset) return &r;
  return nullptr;
}

// The kernel the plan names by its offset in the linked program: there, or in the student's
// device code where the kit's own replay program loaded it (student_device_code.h).
const void* KernelAt(int64_t offset) {
#ifndef __LABKIT_EMU__
  if (StudentDeviceCodeLoaded()) return StudentKernel(offset);
#endif
  return ImageAddress(offset);
}

bool DeviceCodeLoaded() {
#ifndef __LABKIT_EMU__
  return StudentDeviceCodeLoaded();
#else
  return false;
#endif
}

}  // namespace

class PlanReplay::Impl {
 public:
  struct Buffer {
    char* base = nullptr;  // what offsets are measured from
    int64_t low = 0;       // lowest offset inside the allocation (negative: a guard zone)
    int64_t high = 0;      // one past the highest
    bool owned = false;    // allocated by the replay, freed at the end
  };

  Impl(const StudentImage& image, const HarnessMatrix& A, const HarnessMatrix& B,
       const HarnessMatrix& C, std::vector<ReplayHostArray> host)
      : image_(image), host_(std::move(host)) {
    int32_t id = kRegionA;
    for (const HarnessMatrix* m : {&A, &B, &C}) {
      buffers_[id++] =
          Buffer{static_cast<char*>(const_cast<void*>(m->data)), -static_cast<int64_t>(m->slack),
                 static_cast<int64_t>(m->bytes + m->slack), false};
    }
  }
  ~Impl() {
    for (const auto& [id, buffer] : buffers_)
      if (buffer.owned) cudaFree(buffer.base);
  }

  void PoisonAllocations(unsigned char byte) { poison_ = byte; }

  std::string Run(const Plan& plan) {
    for (const Op& op : plan.ops) {
      const std::string why = Do(op);
      if (!why.empty()) return why;
    }
    return "";
  }

 private:
  // The device address `ref` names, with `bytes` after it inside the same buffer; null if not.
  char* At(const Ref& ref, uint64_t bytes) const {
    const auto it = buffers_.find(ref.region);
    if (it == buffers_.end()) return nullptr;
    const Buffer& b = it->second;
    if (ref.offset < b.low || ref.offset > b.high ||
        bytes > static_cast<uint64_t>(b.high - ref.offset))
      return nullptr;
    return b.base + ref.offset;
  }

  // The host array `ref` names, with `bytes` after it inside it; null if not.
  char* HostAt(const Ref& ref, uint64_t bytes) const {
    if (ref.region < 0 || static_cast<std::size_t>(ref.region) >= host_.size()) return nullptr;
    const ReplayHostArray& h = host_[ref.region];
    if (ref.offset < 0 || static_cast<uint64_t>(ref.offset) > h.bytes ||
        bytes > h.bytes - static_cast<uint64_t>(ref.offset))
      return nullptr;
    return static_cast<char*>(h.data) + ref.offset;
  }

  // A copy between two places already checked (null: outside every buffer).
  static std::string Copy(void* dst, const void* src, uint64_t bytes, cudaMemcpyKind kind) {
    if (dst == nullptr || src == nullptr) return "a copy past the end of its buffer";
    LABKIT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, kind));
    return "";
  }

  std::string Do(const Op& op) {
    switch (op.type) {
      case OpType::kAlloc: {
        if (op.dst.region < kFirstAllocation || buffers_.count(op.dst.region) > 0)
          return "an allocation the grader cannot place";
        void* p = nullptr;
        LABKIT_CUDA_CHECK(cudaMalloc(&p, op.bytes));
        if (poison_) LABKIT_CUDA_CHECK(cudaMemset(p, *poison_, op.bytes));
        buffers_[op.dst.region] =
            Buffer{static_cast<char*>(p), 0, static_cast<int64_t>(op.bytes), true};
        return "";
      }
      case OpType::kFree: {
        const auto it = buffers_.find(op.dst.region);
        if (it == buffers_.end() || !it->second.owned) return "a cudaFree of unknown memory";
        LABKIT_CUDA_CHECK(cudaFree(it->second.base));
        buffers_.erase(it);
        return "";
      }
      case OpType::kMemset: {
        char* dst = At(op.dst, op.bytes);
        if (dst == nullptr) return "a cudaMemset past the end of its buffer";
        LABKIT_CUDA_CHECK(cudaMemset(dst, op.value, op.bytes));
        return "";
      }
      case OpType::kUpload: {
        char* dst = At(op.dst, op.data.size());
        if (dst == nullptr || op.data.size() != op.bytes)
          return "a copy past the end of its buffer";
        LABKIT_CUDA_CHECK(cudaMemcpy(dst, op.data.data(), op.bytes, cudaMemcpyHostToDevice));
        return "";
      }
      case OpType::kCopy:
        return Copy(At(op.dst, op.bytes), At(op.src, op.bytes), op.bytes,
                    cudaMemcpyDeviceToDevice);
      case OpType::kHostUpload:
        return Copy(At(op.dst, op.bytes), HostAt(op.src, op.bytes), op.bytes,
                    cudaMemcpyHostToDevice);
      case OpType::kHostDownload:
        return Copy(HostAt(op.dst, op.bytes), At(op.src, op.bytes), op.bytes,
                    cudaMemcpyDeviceToHost);
      case OpType::kSymbolUpload:
      case OpType::kSymbolCopy:
        return SymbolWrite(op);
      case OpType::kLaunch:
        return Launch(op);
      case OpType::kFuncAttribute: {
        const void* kernel = KernelAt(op.image);
        if (!Starts(image_.kernels, op.image) || kernel == nullptr)
          return "cudaFuncSetAttribute on something not a kernel";
        KeepAttributeBeforeChange(kernel, op.value);
        LABKIT_CUDA_CHECK(cudaFuncSetAttribute(kernel, static_cast<cudaFuncAttribute>(op.value),
                                               static_cast<int>(op.attribute_value)));
        return "";
      }
      case OpType::kUnsupported:
        return op.note.empty() ? "a call the grader cannot repeat" : op.note;
    }
    return "an operation the grader does not know";
  }

  std::string SymbolWrite(const Op& op) {
    const bool upload = op.type == OpType::kSymbolUpload;
    const uint64_t bytes = upload ? op.data.size() : op.bytes;
    const ImageRange* variable = StartingAt(image_.variables, op.image);
    const auto size = variable == nullptr ? 0 : static_cast<uint64_t>(variable->size);
    if (variable == nullptr || op.symbol_offset > size || bytes > size - op.symbol_offset)
      return "a copy to a __constant__ or __device__ variable outside your own";
    const void* src = upload ? static_cast<const void*>(op.data.data()) : At(op.src, bytes);
    if (src == nullptr) return "a copy past the end of its buffer";
    const cudaMemcpyKind kind = upload ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToDevice;
#ifndef __LABKIT_EMU__
    if (StudentDeviceCodeLoaded()) {
      const std::optional<DeviceVariable> loaded = StudentVariable(op.image);
      if (!loaded || op.symbol_offset > loaded->bytes || bytes > loaded->bytes - op.symbol_offset)
        return "a copy to a __constant__ or __device__ variable outside your own";
      // Noted as the cudaMemcpyToSymbol it stands for (device memory into a __constant__
      // variable is refused by the measured technique), not as the plain copy that does it.
      NoteCopyToSymbol("cudaMemcpyToSymbol", loaded->constant, src, bytes, kind);
      UnnotedTransfers copy_of_the_kits;
      LABKIT_CUDA_CHECK(cudaMemcpy(loaded->address + op.symbol_offset, src, bytes, kind));
      return "";
    }
#endif
    // `const void*`: the C API's function; with a `void*` the runtime's template would take the
    // address of this pointer variable as the symbol.
    const void* symbol = ImageAddress(op.image);
#ifdef __LABKIT_EMU__
    LABKIT_CUDA_CHECK(emu::detail::copy_to_symbol(const_cast<void*>(symbol),
                                                  static_cast<size_t>(variable->size), src, bytes,
                                                  op.symbol_offset, kind));
#else
    LABKIT_CUDA_CHECK(cudaMemcpyToSymbol(symbol, src, bytes, op.symbol_offset, kind));
#endif
    return "";
  }

  // The launch's argument bytes with every address translated to this process.
  std::string Relocated(const Op& op, std::vector<unsigned char>& bytes) const {
    bytes = op.data;
    for (const Relocation& r : op.relocations) {
      if (r.at % sizeof(void*) != 0 || r.at + sizeof(void*) > bytes.size())
        return "a launch argument the grader cannot read";
      const void* address = nullptr;
      if (r.device.known()) {
        address = At(r.device, 0);
        if (address == nullptr) return "a launch argument that points outside every buffer";
      } else if (!DeviceCodeLoaded() &&
                 (Starts(image_.kernels, r.image) || Starts(image_.runners, r.image))) {
        address = ImageAddress(r.image);
      } else {
        return "a launch argument that points into the program";
      }
      std::memcpy(bytes.data() + r.at, &address, sizeof address);
    }
    return "";
  }

  std::string Launch(const Op& op) {
    if (!Starts(image_.kernels, op.image)) return "a launch of something that is not your kernel";
    const void* kernel = KernelAt(op.image);
    // Not in the loaded device code: a host function the plan launched, say (as cudaLaunchKernel
    // of a host function pointer fails in the student's own program).
    if (kernel == nullptr) return "a launch of something that is not a kernel of your device code";
    std::vector<unsigned char> bytes;
    if (const std::string why = Relocated(op, bytes); !why.empty()) return why;
    const dim3 grid(op.grid[0], op.grid[1], op.grid[2]);
    const dim3 block(op.block[0], op.block[1], op.block[2]);
#ifdef __LABKIT_EMU__
    if (!Starts(image_.runners, op.runner)) return "a launch the grader cannot repeat";
    std::vector<emu::detail::PointerArgument> pointers;
    if (op.pointer_params.size() != op.pointer_offsets.size())
      return "a launch argument the grader cannot read";
    for (std::size_t i = 0; i < op.pointer_params.size(); ++i) {
      if (op.pointer_offsets[i] + sizeof(void*) > bytes.size())
        return "a launch argument the grader cannot read";
      const void* value = nullptr;
      std::memcpy(&value, bytes.data() + op.pointer_offsets[i], sizeof value);
      pointers.push_back({static_cast<int>(op.pointer_params[i]), value});
    }
    // The closure is copied into storage aligned as any object (its runner reads it as one).
    std::vector<std::max_align_t> closure((bytes.size() + sizeof(std::max_align_t) - 1) /
                                          sizeof(std::max_align_t));
    std::memcpy(closure.data(), bytes.data(), bytes.size());
    const auto runner = reinterpret_cast<void (*)(const void*)>(ImageAddress(op.runner));
    emu::detail::launch(emu::detail::LaunchRequest{
        kernel, grid, block, op.shared_bytes, nullptr, runner, closure.data(), pointers.data(),
        static_cast<int>(pointers.size()), bytes.size()});
#else
    std::vector<ParamSlot> slots;
    if (!ParamLayout(kernel, slots)) return "a launch the grader cannot repeat";
    std::vector<void*> args;
    for (const ParamSlot& s : slots) {
      if (s.offset + s.size > bytes.size()) return "a launch argument the grader cannot read";
      args.push_back(bytes.data() + s.offset);
    }
    // Errors of the launch itself (a bad configuration) are the caller's to collect, as after the
    // student's own launch.
    cudaLaunchKernel(kernel, grid, block, args.data(), op.shared_bytes, nullptr);
#endif
    return "";
  }

  const StudentImage& image_;
  std::vector<ReplayHostArray> host_;
  std::optional<unsigned char> poison_;
  std::map<int32_t, Buffer> buffers_;
};

PlanReplay::PlanReplay(const StudentImage& image, const HarnessMatrix& A, const HarnessMatrix& B,
                       const HarnessMatrix& C, std::vector<ReplayHostArray> host)
    : impl_(std::make_unique<Impl>(image, A, B, C, std::move(host))) {}
PlanReplay::~PlanReplay() = default;
std::string PlanReplay::Run(const Plan& plan) { return impl_->Run(plan); }
void PlanReplay::PoisonAllocations(unsigned char byte) { impl_->PoisonAllocations(byte); }

}  // namespace labkit::replay
