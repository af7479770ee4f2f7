#include "kit_replay_program.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "fatbin_resources.h"
#include "manifest.h"
#include "untrusted_file.h"

namespace labkit {
namespace {

TEST(KitReplayProgram, NamesComeFromTheProgramsSymbols) {
  const nlohmann::json symbols = {{"_Z9my_kernelPf", {4096, 200, "code"}},
                                  {"_ZL16d_scratch_values", {8192, 256, "data"}},
                                  {"broken", {"x", 1, "code"}}};
  FatbinVariables variables;
  variables.global = {"d_values"};
  variables.constant = {"c_side"};
  variables.complete = true;
  const nlohmann::json list =
      DeviceCodeJson("/w/kit_replay", {"/w/harness.fatbin0"}, symbols, variables);
  EXPECT_EQ(list["device_variable_names"], nlohmann::json::array({"d_values", "c_side"}));
  EXPECT_EQ(list["constant_names"], nlohmann::json::array({"c_side"}));
  EXPECT_EQ(list["constants_complete"], true);
  EXPECT_EQ(list["program"], "/w/kit_replay");
  EXPECT_EQ(list["fatbins"], nlohmann::json::array({"/w/harness.fatbin0"}));
  EXPECT_EQ(list["kernel_names"], nlohmann::json::parse(R"([[4096, "_Z9my_kernelPf"]])"));
  EXPECT_EQ(list["variable_names"], nlohmann::json::parse(R"([[8192, "_ZL16d_scratch_values"]])"));
}

// With the kit's own nvcc (none on a machine without the CUDA toolkit): the fatbinary cut out of a
// real object is one whole fatbinary, and the list names it, the program's symbols and the
// __constant__ variables of the real PTX.
TEST(KitReplayProgram, DeviceCodeIsCutOutOfARealObject) {
  Manifest manifest;
  std::string error;
  if (!LoadManifest(DefaultManifestPath(), manifest, error)) GTEST_SKIP() << error;
  if (manifest.nvcc.empty()) GTEST_SKIP() << "no nvcc in this build of the kit";
  namespace fs = std::filesystem;
  const std::string dir =
      (fs::temp_directory_path() / ("labkit_kit_replay_" + std::to_string(getpid()))).string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir + "/k.cu")
      << "__constant__ int c_side;\n"
         "__device__ float d_values[8];\n"
         "__global__ void scale(float* p) { p[0] = d_values[0] * c_side; }\n";
  SystemProcessRunner runner;
  {
    Command c;
    c.argv = {manifest.nvcc, "-c", "-arch=sm_90", dir + "/k.cu", "-o", dir + "/k.o"};
    c.timeout_seconds = 120;
    ASSERT_TRUE(runner.Run(c).Succeeded());
  }
  const std::string program = dir + "/harness";
  const std::string symbols = program + ".symbols.json";
  std::ofstream(symbols)
      << R"({"_Z5scalePf": [4096, 64, "code"], "_ZL8d_values": [8192, 32, "data"]})";
  const DeviceCodeOutcome code =
      WriteDeviceCode(runner, {dir + "/k.o"}, program, symbols, dir + "/kit");
  ASSERT_TRUE(code.written) << code.kit_fault;
  const auto text = ReadUntrustedFile(DeviceCodePath(program), 1 << 20);
  ASSERT_TRUE(text.ok()) << text.error();
  const nlohmann::json list = nlohmann::json::parse(*text);
  EXPECT_EQ(list["program"], dir + "/kit");
  // Off the fatbinary's own symbol table: which is __constant__ is the loaded code's word.
  EXPECT_EQ(list["device_variable_names"], nlohmann::json::array({"d_values", "c_side"}));
  EXPECT_EQ(list["constant_names"], nlohmann::json::array({"c_side"}));
  EXPECT_EQ(list["constants_complete"], true);
  EXPECT_EQ(list["kernel_names"], nlohmann::json::parse(R"([[4096, "_Z5scalePf"]])"));
  ASSERT_EQ(list["fatbins"].size(), 1u);
  const auto fatbin = ReadUntrustedFile(list["fatbins"][0].get<std::string>(), 64u << 20);
  ASSERT_TRUE(fatbin.ok());
  EXPECT_TRUE(IsOneFatbin(std::vector<char>(fatbin->begin(), fatbin->end())));
  // The resources the technique check reads on a GPU come from that same list's fatbinaries.
  const std::optional<ResourceReport> resources = ResourcesOfBuild(program);
  ASSERT_TRUE(resources.has_value());
  ASSERT_EQ(resources->kernels.size(), 1u);
  EXPECT_EQ(resources->kernels[0].mangled, "_Z5scalePf");
  EXPECT_EQ(resources->kernels[0].arch, "sm_90");
  EXPECT_GT(resources->kernels[0].registers, 0);

  // Bytes of the student's own in the section: the object is refused, not replayed linked.
  std::ofstream(dir + "/s.cu")
      << "__attribute__((section(\".nv_fatbin\"), used)) const char extra[16] = {1};\n"
         "__global__ void k(float* p) { p[0] = 1; }\n";
  Command c;
  c.argv = {manifest.nvcc, "-c", "-arch=sm_90", dir + "/s.cu", "-o", dir + "/s.o"};
  c.timeout_seconds = 120;
  ASSERT_TRUE(runner.Run(c).Succeeded());
  const DeviceCodeOutcome mixed =
      WriteDeviceCode(runner, {dir + "/k.o", dir + "/s.o"}, program, symbols, dir + "/kit");
  EXPECT_FALSE(mixed.written);
  EXPECT_EQ(mixed.mixed_section, 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace labkit
