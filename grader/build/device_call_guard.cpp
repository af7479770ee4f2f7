#include "device_call_guard.h"

#include <regex>
#include <set>
#include <sstream>

#include "resource_report.h"

namespace labkit {
namespace {

using symbol_families::InKernel;

// The stub for `name`: on to the real function, or, on an OS thread running a kernel's block
// (emu's __emu_kernel_running, set by its scheduler), to the report, with the name and the
// call's return address. %r11 is free at every call in the x86-64 ABI.
std::string Stub(const std::string& name, std::size_t index) {
  const std::string stub = "__emu_guard_" + name;
  const std::string label = ".Lemu_guard_name" + std::to_string(index);
  std::ostringstream s;
  s << "\t.section .text." << stub << ",\"ax\",@progbits\n"
    << "\t.globl " << stub << "\n"
    << "\t.type " << stub << ", @function\n"
    << stub << ":\n"
    << "\tmovq __emu_kernel_running@gottpoff(%rip), %r11\n"
    << "\tcmpb $0, %fs:(%r11)\n"
    << "\tjne 1f\n"
    << "\tjmp " << name << "\n"
    << "1:\tleaq " << label << "(%rip), %rdi\n"
    << "\tmovq (%rsp), %rsi\n"
    << "\tjmp __emu_host_call_in_kernel\n"
    << "\t.size " << stub << ", .-" << stub << "\n"
    << "\t.section .rodata.str1.1,\"aMS\",@progbits,1\n"
    << label << ":\n"
    << "\t.string \"" << name << "\"\n";
  return s.str();
}

}  // namespace

bool NamesData(const std::string& name) {
  static const std::regex c_data(
      "stdout|stderr|stdin|environ|__environ|threadIdx|blockIdx|blockDim|gridDim|__dso_handle|"
      "_GLOBAL_OFFSET_TABLE_|__gmon_start__|_ITM_.*|DW\\.ref\\..*");
  if (name.rfind("_Z", 0) != 0) return std::regex_match(name, c_data);
  // Special names: vtables, VTTs, type information and its names, guard variables.
  if (name.rfind("_ZT", 0) == 0 && name.size() > 3 &&
      std::string("VTIS").find(name[3]) != std::string::npos)
    return true;
  if (name.rfind("_ZGV", 0) == 0) return true;
  const std::string readable = DemangleSymbol(name);
  return readable == name || readable.find('(') == std::string::npos;
}

DeviceCallGuard GuardDeviceCalls(const std::vector<ObjectSymbol>& symbols) {
  DeviceCallGuard out;
  std::set<std::string> seen;
  for (const ObjectSymbol& s : symbols) {
    if (s.type != 'U' || !seen.insert(s.name).second || NamesData(s.name)) continue;
    switch (KernelUseOnCpu(s.name)) {
      case InKernel::kCallable:
        break;
      case InKernel::kEmulated:
        // memcpy -> __emu_device_memcpy, __memcpy_chk -> __emu_device___memcpy_chk.
        out.redefinitions += s.name + " __emu_device_" + s.name + "\n";
        break;
      case InKernel::kHostOnly:
        out.redefinitions += s.name + " __emu_guard_" + s.name + "\n";
        out.stubs += Stub(s.name, seen.size());
        break;
    }
  }
  if (!out.stubs.empty()) out.stubs += "\t.section .note.GNU-stack,\"\",@progbits\n";
  return out;
}

}  // namespace labkit
