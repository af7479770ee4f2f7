#include "kit_replay_program.h"

#include <cstdint>
#include <cstring>
#include <regex>

#include "student_image.h"
#include "untrusted_file.h"

namespace labkit {
using nlohmann::json;

namespace {

constexpr uint32_t kFatbinMagic = 0xBA55ED50;
constexpr std::size_t kFatbinHeaderBytes = 16;
constexpr std::size_t kMaxFatbinBytes = 64u << 20;  // as the replay program reads them

template <class T>
T Read(const std::vector<char>& bytes, std::size_t at) {
  T value{};
  std::memcpy(&value, bytes.data() + at, sizeof value);
  return value;
}

}  // namespace

bool IsOneFatbin(const std::vector<char>& bytes) {
  if (bytes.size() < kFatbinHeaderBytes || bytes.size() > kMaxFatbinBytes) return false;
  return Read<uint32_t>(bytes, 0) == kFatbinMagic &&
         Read<uint16_t>(bytes, 6) == kFatbinHeaderBytes &&
         Read<uint64_t>(bytes, 8) == bytes.size() - kFatbinHeaderBytes;
}

std::string DeviceCodePath(const std::string& executable) {
  return executable + ".device_code.json";
}

std::vector<std::string> DeviceVariableNamesFromPtx(const std::string& ptx) {
  static const std::regex declaration(
      R"(^[ \t]*(?:\.(?:visible|extern|weak)[ \t]+)*\.(?:const|global)[ \t]+)"
      R"((?:\.align[ \t]+[0-9]+[ \t]+)?)"
      R"((?:\.v[0-9][ \t]+)?\.[a-z0-9]+[ \t]+([A-Za-z_$][A-Za-z0-9_$]*))",
      std::regex::multiline);
  std::vector<std::string> names;
  for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), declaration);
       it != std::sregex_iterator(); ++it)
    names.push_back((*it)[1]);
  return names;
}

json DeviceCodeJson(const std::string& program, const std::vector<std::string>& fatbins,
                    const json& symbols, const std::vector<std::string>& device_variable_names) {
  json list = {{"program", program},
               {"fatbins", fatbins},
               {"device_variable_names", device_variable_names},
               {"kernel_names", json::array()},
               {"variable_names", json::array()}};
  for (const auto& [name, entry] : symbols.items()) {
    if (!entry.is_array() || entry.size() != 3 || !entry[0].is_number_integer()) continue;
    list[entry[2] == "code" ? "kernel_names" : "variable_names"].push_back({entry[0], name});
  }
  return list;
}

DeviceCodeOutcome WriteDeviceCode(ProcessRunner& runner, const std::vector<std::string>& objects,
                                  const std::vector<std::string>& ptx,
                                  const std::string& executable, const std::string& program) {
  DeviceCodeOutcome outcome;
  auto fault = [&](const std::string& why) {
    outcome.kit_fault = why;
    return outcome;
  };
  std::vector<std::string> fatbins;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const std::string out = executable + ".fatbin" + std::to_string(i);
    Command cut;
    cut.argv = {"objcopy", "-O", "binary", "--only-section=.nv_fatbin", objects[i], out};
    cut.timeout_seconds = 30;
    const ProcessResult r = runner.Run(cut);
    if (!r.Succeeded())
      return fault("objcopy could not cut the device code out (" + r.Describe() + ")");
    const auto bytes = ReadUntrustedFile(out, kMaxFatbinBytes);
    if (!bytes.ok()) return fault("no device code in " + objects[i] + ": " + bytes.error());
    if (!IsOneFatbin(std::vector<char>(bytes->begin(), bytes->end()))) {
      outcome.mixed_section = static_cast<int>(i);
      return outcome;
    }
    fatbins.push_back(out);
  }
  std::vector<std::string> variables;
  for (const std::string& file : ptx) {
    const auto text = ReadUntrustedFile(file, 256u << 20);
    if (!text.ok()) continue;  // names to try, no more: the host's names still give most
    const std::vector<std::string> own = DeviceVariableNamesFromPtx(*text);
    variables.insert(variables.end(), own.begin(), own.end());
  }
  const auto symbols = ReadUntrustedFile(StudentSymbolsPath(executable), 64u << 20);
  if (!symbols.ok()) return fault("the program's symbols are missing: " + symbols.error());
  const json listed = json::parse(*symbols, nullptr, false);
  if (!listed.is_object()) return fault("the program's symbols cannot be read");
  const Status written = WriteUntrustedFile(
      DeviceCodePath(executable), DeviceCodeJson(program, fatbins, listed, variables).dump());
  if (!written) return fault(written.error());
  outcome.written = true;
  return outcome;
}

}  // namespace labkit
