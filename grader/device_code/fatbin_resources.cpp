#include "fatbin_resources.h"

#include <algorithm>

#include "fatbin_elf.h"
#include "kit_replay_program.h"

namespace labkit {
namespace {

constexpr uint8_t kFunctionSymbol = 2;
constexpr uint8_t kEntryFunction = 0x10;  // st_other: a kernel (__global__)
constexpr uint8_t kAttributeRegisters = 0x2f;
constexpr uint8_t kAttributeFrameSize = 0x11;
constexpr uint8_t kAttributeBarriers = 0x4c;
constexpr uint8_t kAttributeMaxThreads = 0x05;  // a kernel's __launch_bounds__ (.maxntid)
constexpr int64_t kReservedSharedBytes = 1024;

// One record of a `.nv.info*` section: (attribute, value), or for a sized record of two words
// (attribute, symbol index, value).
struct Attribute {
  uint8_t id = 0;
  uint32_t symbol = 0;
  int64_t value = 0;
  bool per_symbol = false;
};

bool ZerosFrom(const Bytes& bytes, uint64_t at) {
  for (; at < bytes.size(); ++at)
    if (bytes.At<uint8_t>(at).value_or(1) != 0) return false;
  return true;
}

// The records of one `.nv.info*` section: four bytes each (form, attribute, a half-word), a sized
// one followed by that many bytes, zero bytes padding the end. False where the section cannot be
// walked.
bool ReadAttributes(const Bytes& info, std::vector<Attribute>& out) {
  uint64_t at = 0;
  while (at < info.size()) {
    const auto format = info.At<uint8_t>(at), id = info.At<uint8_t>(at + 1);
    if (!format) return false;
    if (*format == 0) return ZerosFrom(info, at);  // padding to the section's end
    if (!id) return false;
    if (*format == 1) {  // no value: the record is four bytes all the same
      at += 4;
    } else if (*format == 2 || *format == 3) {  // a byte or a half-word, in the next two bytes
      const auto value = info.At<uint16_t>(at + 2);
      if (!value) return false;
      out.push_back({*id, 0, *format == 2 ? (*value & 0xFF) : *value, false});
      at += 4;
    } else if (*format == 4) {  // sized
      const auto size = info.At<uint16_t>(at + 2);
      if (!size) return false;
      if (*size == 8) {
        const auto symbol = info.At<uint32_t>(at + 4), value = info.At<uint32_t>(at + 8);
        if (!symbol || !value) return false;
        out.push_back({*id, *symbol, *value, true});
      } else if (*id == kAttributeMaxThreads && *size == 12) {  // __launch_bounds__: x, y, z
        const auto x = info.At<uint32_t>(at + 4), y = info.At<uint32_t>(at + 8),
                   z = info.At<uint32_t>(at + 12);
        if (!x || !y || !z) return false;
        out.push_back({*id, 0, static_cast<int64_t>(*x) * *y * *z, false});
      }
      at += 4 + *size;
    } else {
      return false;
    }
  }
  return true;
}

// The kernels of one cubin into `report`; false where it cannot be read.
bool ReadKernels(const Bytes& bytes, ResourceReport& report) {
  const std::optional<CubinElf> elf = CubinElf::Read(bytes);
  if (!elf) return false;
  const CubinElf::Section* module_info = elf->Named(".nv.info");
  std::vector<Attribute> module;
  if (module_info != nullptr && !ReadAttributes(elf->Contents(*module_info), module)) return false;
  const int64_t reserved =
      elf->Named(".nv.shared.reserved.0") != nullptr ? kReservedSharedBytes : 0;
  const std::vector<CubinElf::Symbol>& symbols = elf->symbols();
  for (uint32_t index = 0; index < symbols.size(); ++index) {
    const CubinElf::Symbol& s = symbols[index];
    if ((s.info & 0xF) != kFunctionSymbol || (s.other & kEntryFunction) == 0 || s.name.empty())
      continue;
    KernelResources k;
    k.mangled = s.name;
    k.arch = "sm_" + std::to_string(elf->sm());
    bool registers_found = false;
    for (const Attribute& a : module) {
      if (!a.per_symbol || a.symbol != index) continue;
      if (a.id == kAttributeRegisters) {
        k.registers = a.value;
        registers_found = true;
      }
      if (a.id == kAttributeFrameSize) k.local_bytes = a.value;
    }
    if (!registers_found) return false;  // a layout this does not know
    int64_t bounded_threads = 0;
    if (const CubinElf::Section* own = elf->Named(".nv.info." + s.name)) {
      std::vector<Attribute> attributes;
      if (!ReadAttributes(elf->Contents(*own), attributes)) return false;
      for (const Attribute& a : attributes) {
        if (a.per_symbol) continue;
        if (a.id == kAttributeBarriers) k.barriers = a.value;
        if (a.id == kAttributeMaxThreads) bounded_threads = a.value;
      }
    }
    if (const CubinElf::Section* shared = elf->Named(".nv.shared." + s.name)) {
      k.static_shared_bytes = static_cast<int64_t>(shared->size) - reserved;
      if (k.static_shared_bytes < 0) return false;
    }
    // What cudaFuncGetAttributes gives as maxThreadsPerBlock: the registers' limit, and the
    // kernel's __launch_bounds__ where it has some.
    k.max_threads = MaxThreadsPerBlock(k.registers);
    if (bounded_threads > 0) k.max_threads = std::min(k.max_threads, bounded_threads);
    report.kernels.push_back(std::move(k));
  }
  return true;
}

}  // namespace

std::optional<ResourceReport> ResourcesInFatbin(const std::vector<char>& fatbin) {
  ResourceReport report;
  int cubins = 0;
  bool every_cubin_read = true;
  const bool walked = ForEachCubin(fatbin, [&](const Bytes& cubin) {
    ++cubins;
    if (!ReadKernels(cubin, report)) every_cubin_read = false;
  });
  // No machine code at all (PTX alone) says nothing of what would run.
  if (!walked || !every_cubin_read || cubins == 0) return std::nullopt;
  return report;
}

std::optional<ResourceReport> ResourcesOfBuild(const std::string& executable) {
  const auto fatbins = ReadBuildFatbins(executable);
  if (!fatbins) return std::nullopt;
  ResourceReport report;
  for (const std::vector<char>& fatbin : *fatbins) {
    const std::optional<ResourceReport> one = ResourcesInFatbin(fatbin);
    if (!one) return std::nullopt;
    report.kernels.insert(report.kernels.end(), one->kernels.begin(), one->kernels.end());
  }
  return report;
}

}  // namespace labkit
