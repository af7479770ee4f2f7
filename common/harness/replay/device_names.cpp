#include "device_names.h"

#include <cctype>
#include <cstddef>
#include <optional>

namespace labkit::replay {
namespace {

bool Digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// The source name ("<length><identifier>") at `at`: its length in the string, or 0.
std::size_t SourceName(const std::string& s, std::size_t at) {
  std::size_t i = at, length = 0;
  while (i < s.size() && Digit(s[i])) length = length * 10 + static_cast<std::size_t>(s[i++] - '0');
  if (i == at || length == 0 || i + length > s.size()) return 0;
  return i - at + length;
}

// "_Z8d_values" -> "d_values": a name of one source name, as a namespace-scope variable's is on
// the host, and the name it has on the device, where such a variable is not mangled.
std::optional<std::string> PlainName(const std::string& own) {
  if (own.rfind("_Z", 0) != 0 || SourceName(own, 2) != own.size() - 2) return std::nullopt;
  std::size_t digits = 2;
  while (Digit(own[digits])) ++digits;
  return own.substr(digits);
}

}  // namespace

std::string WithoutInternalMarks(const std::string& host) {
  if (host.rfind("_Z", 0) != 0) return host;
  std::string out = "_Z";
  std::size_t i = 2;
  if (i < host.size() && host[i] == 'L' && i + 1 < host.size() && Digit(host[i + 1])) ++i;
  if (i < host.size() && host[i] == 'N') {
    out += 'N';
    ++i;
    // The nested name's components: source names, each perhaps marked internal. Anything else
    // (a template's arguments, a substitution) ends the walk; the rest is copied as it is.
    while (i < host.size()) {
      if (host[i] == 'L' && i + 1 < host.size() && Digit(host[i + 1])) ++i;
      const std::size_t n = SourceName(host, i);
      if (n == 0) break;
      out += host.substr(i, n);
      i += n;
    }
  }
  return out + host.substr(i);
}

bool NamesTheSame(const std::string& host, const std::string& device) {
  const std::string own = WithoutInternalMarks(host);
  if (device == own || device == PlainName(own)) return true;
  // "_ZN2ns1cE" -> "_ZN<n>_INTERNAL_<tu>2ns1cE": one component more, in front.
  if (own.rfind("_ZN", 0) != 0 || device.rfind("_ZN", 0) != 0) return false;
  const std::size_t first = SourceName(device, 3);
  if (first == 0 || device.find("_INTERNAL_", 3) >= 3 + first) return false;
  return device.compare(3 + first, std::string::npos, own, 3, std::string::npos) == 0;
}

std::vector<std::string> DeviceNameCandidates(const std::string& host,
                                              const std::vector<std::string>& known) {
  std::vector<std::string> names;
  auto add = [&](const std::string& name) {
    for (const std::string& n : names)
      if (n == name) return;
    names.push_back(name);
  };
  for (const std::string& name : known)
    if (NamesTheSame(host, name)) add(name);
  const std::string own = WithoutInternalMarks(host);
  if (const std::optional<std::string> plain = PlainName(own)) add(*plain);
  add(own);
  add(host);
  return names;
}

}  // namespace labkit::replay
