#include "fatbin_ptx.h"

#include "fatbin_elf.h"
#include "kit_replay_program.h"

namespace labkit {

std::optional<std::string> PtxInFatbin(const std::vector<char>& fatbin) {
  std::string ptx;
  bool found = false, all_text = true;
  const bool walked = ForEachEntry(fatbin, [&](FatbinEntryKind kind, const Bytes& payload) {
    if (kind != FatbinEntryKind::kPtx) return;
    found = true;
    std::string text(payload.data(), payload.size());
    // nvcc pads an entry with NUL bytes; one inside the text, or no .version directive (which
    // every PTX module opens with), is an entry stored compressed.
    text.erase(text.find_last_not_of('\0') + 1);
    if (text.find('\0') != std::string::npos || text.find(".version") == std::string::npos)
      all_text = false;
    ptx += text;
    ptx += '\n';
  });
  if (!walked || !found || !all_text) return std::nullopt;
  return ptx;
}

std::optional<std::string> PtxOfBuild(const std::string& executable) {
  const auto fatbins = ReadBuildFatbins(executable);
  if (!fatbins) return std::nullopt;
  std::string ptx;
  for (const std::vector<char>& fatbin : *fatbins) {
    const std::optional<std::string> one = PtxInFatbin(fatbin);
    if (!one) return std::nullopt;
    ptx += *one;
  }
  return ptx;
}

}  // namespace labkit
