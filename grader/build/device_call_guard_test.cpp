#include "device_call_guard.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace labkit {
namespace {

std::vector<ObjectSymbol> Undefined(std::initializer_list<const char*> names) {
  std::vector<ObjectSymbol> out;
  for (const char* n : names) out.push_back({n, 'U'});
  return out;
}

bool Renames(const DeviceCallGuard& g, const std::string& from, const std::string& to) {
  return g.redefinitions.find(from + " " + to + "\n") != std::string::npos;
}
bool Mentions(const DeviceCallGuard& g, const std::string& name) {
  return g.redefinitions.find(name + " ") != std::string::npos;
}

TEST(DeviceCallGuard, CopiesAndTheClockGoToTheEmulatorsOwn) {
  const DeviceCallGuard g =
      GuardDeviceCalls(Undefined({"memcpy", "memmove", "memset", "__memcpy_chk", "clock"}));
  EXPECT_TRUE(Renames(g, "memcpy", "__emu_device_memcpy"));
  EXPECT_TRUE(Renames(g, "memmove", "__emu_device_memmove"));
  EXPECT_TRUE(Renames(g, "memset", "__emu_device_memset"));
  EXPECT_TRUE(Renames(g, "__memcpy_chk", "__emu_device___memcpy_chk"));
  EXPECT_TRUE(Renames(g, "clock", "__emu_device_clock"));
  EXPECT_TRUE(g.stubs.empty()) << "the emulator's versions need no stub";
}

TEST(DeviceCallGuard, HostOnlyFunctionsGetAStubThatStopsKernels) {
  // C strings and formatting, C++ strings, the CUDA runtime, cudaMemcpyToSymbol after the rewrite.
  const std::vector<std::string> host_only = {
      "strlen",
      "snprintf",
      "sscanf",
      "qsort",
      "exit",
      "cudaMemcpy",
      "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE12_M_constructEmc",
      "_ZN3emu6detail14copy_to_symbolEPKvS2_mmi"};
  std::vector<ObjectSymbol> symbols;
  for (const std::string& n : host_only) symbols.push_back({n, 'U'});
  const DeviceCallGuard g = GuardDeviceCalls(symbols);
  for (const std::string& n : host_only) {
    EXPECT_TRUE(Renames(g, n, "__emu_guard_" + n)) << n;
    EXPECT_NE(g.stubs.find("__emu_guard_" + n + ":\n"), std::string::npos) << n;
    EXPECT_NE(g.stubs.find("\tjmp " + n + "\n"), std::string::npos) << n;
    EXPECT_NE(g.stubs.find(".string \"" + n + "\""), std::string::npos) << n;
  }
  EXPECT_NE(g.stubs.find("__emu_kernel_running@gottpoff"), std::string::npos);
  EXPECT_NE(g.stubs.find("jmp __emu_host_call_in_kernel"), std::string::npos);
  EXPECT_NE(g.stubs.find(".note.GNU-stack"), std::string::npos);
}

TEST(DeviceCallGuard, WhatDeviceCodeMayCallStaysAsItIs) {
  // Maths, puts, malloc, assert, the emulator's barriers and shuffles, the instrumentation's
  // hooks, operator new, the compiler's support code.
  const DeviceCallGuard g = GuardDeviceCalls(Undefined(
      {"sinf", "expf", "__expf_finite", "puts", "malloc", "free", "__assert_fail",
       "_ZN3emu6detail13barrier_blockEPKciNS0_9BarrierOpEi", "_ZN3emu6detail13warp_exchangeEm",
       "__asan_load4_noabort", "__tsan_read4", "_Znwm", "__cxa_guard_acquire", "_Z7clock64v"}));
  EXPECT_TRUE(g.empty()) << g.redefinitions;
}

// What stores through a pointer the library is handed (printf's %n, frexpf's exponent) goes to
// the emulator's versions, which report the store as the kernel's (r3_libm_pointer_output_...).
TEST(DeviceCallGuard, PointerOutputsGoToTheEmulatorsVersions) {
  const DeviceCallGuard g = GuardDeviceCalls(
      Undefined({"printf", "__printf_chk", "frexpf", "modf", "remquol", "sincosf"}));
  for (const char* name : {"printf", "__printf_chk", "frexpf", "modf", "remquol", "sincosf"})
    EXPECT_TRUE(Renames(g, name, std::string("__emu_device_") + name)) << g.redefinitions;
  EXPECT_TRUE(g.stubs.empty());
}

TEST(DeviceCallGuard, DataAndWeakReferencesAreNotRenamed) {
  std::vector<ObjectSymbol> symbols =
      Undefined({"stdout", "stderr", "threadIdx", "blockDim", "_ZSt4cout",
                 "_ZTVNSt7__cxx1115basic_stringbufIcSt11char_traitsIcESaIcEEE", "_ZTISt9exception",
                 "_ZN3emu6detail17dynamic_smem_baseE"});
  symbols.push_back({"strlen", 'w'});           // weak: may be null, a stub would not be
  symbols.push_back({"my_own_function", 'T'});  // defined by the student
  const DeviceCallGuard g = GuardDeviceCalls(symbols);
  EXPECT_TRUE(g.empty()) << g.redefinitions;
  EXPECT_TRUE(NamesData("_ZSt4cout"));
  EXPECT_FALSE(NamesData("_ZNSolsEf"));  // std::ostream::operator<<(float)
  EXPECT_FALSE(NamesData("strlen"));
}

TEST(DeviceCallGuard, EachNameOnce) {
  const DeviceCallGuard g = GuardDeviceCalls(Undefined({"strlen", "strlen", "memcpy", "memcpy"}));
  EXPECT_EQ(g.redefinitions, "strlen __emu_guard_strlen\nmemcpy __emu_device_memcpy\n");
  EXPECT_FALSE(Mentions(g, "sinf"));
}

}  // namespace
}  // namespace labkit
