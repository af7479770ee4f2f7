#include "kit_replay_program.h"

#include <filesystem>
#include <map>
#include <mutex>

#include "fatbin_elf.h"
#include "untrusted_file.h"

namespace labkit {
using nlohmann::json;

std::string DeviceCodePath(const std::string& executable) {
  return executable + ".device_code.json";
}

json ReadDeviceCodeList(const std::string& executable) {
  const auto text = ReadUntrustedFile(DeviceCodePath(executable), 64u << 20);
  if (!text.ok()) return nullptr;
  json list = json::parse(*text, nullptr, false);
  if (!list.is_object() || !list.contains("fatbins") || !list["fatbins"].is_array()) return nullptr;
  for (const json& path : list["fatbins"])
    if (!path.is_string()) return nullptr;
  return list;
}

std::optional<std::vector<std::vector<char>>> ReadListedFatbins(const json& list) {
  if (list.is_null()) return std::nullopt;
  std::vector<std::vector<char>> fatbins;
  for (const json& path : list["fatbins"]) {
    const auto bytes = ReadUntrustedFile(path.get<std::string>(), kMaxFatbinBytes);
    if (!bytes.ok()) return std::nullopt;
    fatbins.emplace_back(bytes->begin(), bytes->end());
  }
  return fatbins;
}

std::optional<std::vector<std::vector<char>>> ReadBuildFatbins(const std::string& executable) {
  return ReadListedFatbins(ReadDeviceCodeList(executable));
}

json DeviceCodeJson(const std::string& program, const std::vector<std::string>& fatbins,
                    const json& symbols, const FatbinVariables& variables) {
  std::vector<std::string> all = variables.global;
  all.insert(all.end(), variables.constant.begin(), variables.constant.end());
  json list = {{"program", program},
               {"fatbins", fatbins},
               {"device_variable_names", all},
               {"constant_names", variables.constant},
               {"constants_complete", variables.complete},
               {"kernel_names", json::array()},
               {"variable_names", json::array()}};
  for (const auto& [name, entry] : symbols.items()) {
    if (!entry.is_array() || entry.size() != 3 || !entry[0].is_number_integer()) continue;
    list[entry[2] == "code" ? "kernel_names" : "variable_names"].push_back({entry[0], name});
  }
  return list;
}

std::string LinkedOnceThenCopied(ProcessRunner& runner, const std::vector<std::string>& libraries,
                                 const std::string& here,
                                 const std::function<Command(const std::string&)>& link) {
  static std::mutex mutex;
  static std::map<std::vector<std::string>, std::string> linked;  // libraries -> the first link
  std::lock_guard<std::mutex> lock(mutex);
  std::error_code ec;
  std::filesystem::remove(here, ec);
  std::string& first = linked[libraries];
  if (!first.empty() && std::filesystem::copy_file(first, here, ec)) return here;
  if (!runner.Run(link(here)).Succeeded()) return "";
  first = here;
  return here;
}

std::string MixedSectionMessage(const std::string& file) {
  return file +
         ": its object's .nv_fatbin section holds more than the device code nvcc made for it (a "
         "`section` attribute or directive naming it?). The grader runs your kernels from that "
         "section: leave it to nvcc.";
}

DeviceCodeOutcome WriteDeviceCode(ProcessRunner& runner, const std::vector<std::string>& objects,
                                  const std::string& executable, const std::string& symbols_path,
                                  const std::string& program) {
  DeviceCodeOutcome outcome;
  auto fault = [&](const std::string& why) {
    outcome.kit_fault = why;
    return outcome;
  };
  std::vector<std::string> fatbins;
  FatbinVariables variables;
  variables.complete = true;
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
    const std::vector<char> fatbin(bytes->begin(), bytes->end());
    if (!IsOneFatbin(fatbin)) {
      outcome.mixed_section = static_cast<int>(i);
      return outcome;
    }
    const FatbinVariables own = VariablesInFatbin(fatbin);
    variables.constant.insert(variables.constant.end(), own.constant.begin(), own.constant.end());
    variables.global.insert(variables.global.end(), own.global.begin(), own.global.end());
    variables.complete = variables.complete && own.complete;
    fatbins.push_back(out);
  }
  const auto symbols = ReadUntrustedFile(symbols_path, 64u << 20);
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
