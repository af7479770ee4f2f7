#include "memcheck_log.h"

#include <limits>
#include <regex>
#include <sstream>

namespace labkit {

namespace {

// "4,000" (the tool groups digits in newer versions) as a number; nullopt when not one.
std::optional<unsigned long long> Number(std::string digits, int base = 10) {
  std::string plain;
  for (char c : digits)
    if (c != ',') plain += c;
  if (plain.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const unsigned long long value = std::stoull(plain, &used, base);
    if (used != plain.size()) return std::nullopt;
    return value;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// A line without the tool's "=========" prefix and the spaces after it.
std::string Body(const std::string& line) {
  const auto start = line.find_first_not_of("= ");
  return start == std::string::npos ? "" : line.substr(start);
}

// "at k(const float *, int)+0x1d0 in /s/matmul.cu:88" (compute-sanitizer), "at k(...)+0x70"
// with " in file:line" on the next line, or "at 0xc8 in /s/matmul.cu:75:void k(double*, int)"
// (cuda-memcheck and early compute-sanitizer).
void ReadLocation(const std::string& at, MemcheckAccess& access) {
  static const std::regex old_style(R"(^0x[0-9a-fA-F]+ in (\S+?:\d+):(.+)$)");
  static const std::regex new_style(R"(^(.+?)(?:\+0x[0-9a-fA-F]+)?(?: in (\S+))?$)");
  std::smatch m;
  if (std::regex_match(at, m, old_style)) {
    access.source = m[1].str();
    access.kernel = m[2].str();
  } else if (std::regex_match(at, m, new_style)) {
    access.kernel = m[1].str();
    if (m[2].matched) access.source = m[2].str();
  }
}

}  // namespace

std::optional<MemcheckAccess> FirstInvalidAccess(const std::string& log) {
  static const std::regex invalid(
      R"(^Invalid (?:(__\w+__) )?(read|write|atomic) of size (\d+)(?: bytes?)?\s*$)");
  static const std::regex thread(R"(^by thread (\(\d+,\d+,\d+\)) in block (\(\d+,\d+,\d+\)))");
  static const std::regex address(
      R"(^(?:Address|Access to) (0x[0-9a-fA-F]+) is (out of bounds|misaligned))");
  static const std::regex nearest(
      R"(^and is .* (?:after|before) the nearest allocation at (0x[0-9a-fA-F]+) of size ([\d,]+) bytes)");
  std::optional<MemcheckAccess> found;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    const std::string text = Body(line);
    std::smatch m;
    if (!found) {
      if (std::regex_match(text, m, invalid)) {
        found.emplace();
        found->space = m[1].str();
        found->operation = m[2].str();
        found->bytes = std::stoi(m[3].str().substr(0, 6));
      }
      continue;
    }
    // The access's report ends at a line of the prefix alone, or where another report starts.
    if (text.empty() || text.rfind("Invalid ", 0) == 0 || text.rfind("Program hit", 0) == 0 ||
        text.rfind("Saved host backtrace", 0) == 0)
      break;
    if (text.rfind("at ", 0) == 0 && found->kernel.empty()) {
      ReadLocation(text.substr(3), *found);
    } else if (text.rfind("in ", 0) == 0 && found->source.empty() && !found->kernel.empty()) {
      found->source = text.substr(3);
    } else if (std::regex_search(text, m, thread)) {
      found->thread = m[1].str();
      found->block = m[2].str();
    } else if (std::regex_search(text, m, address)) {
      found->address = Number(m[1].str().substr(2), 16);
      found->out_of_bounds = m[2].str() == "out of bounds";
    } else if (std::regex_search(text, m, nearest)) {
      const auto base = Number(m[1].str().substr(2), 16);
      const auto size = Number(m[2].str());
      if (base && size &&
          *size <= static_cast<unsigned long long>(std::numeric_limits<long long>::max()))
        found->nearest = MemcheckAccess::Allocation{*base, static_cast<long long>(*size)};
    }
  }
  return found;
}

std::optional<BufferPosition> LocateAccess(const MemcheckAccess& access,
                                           const std::vector<NamedBuffer>& buffers) {
  if (!access.address) return std::nullopt;
  const std::uint64_t address = *access.address;
  // Two's complement: the difference of two addresses as a signed offset.
  auto offset_from = [&](std::uint64_t base) { return static_cast<long long>(address - base); };
  if (access.nearest) {
    for (const NamedBuffer& b : buffers)
      if (b.address == access.nearest->base && b.bytes == access.nearest->bytes)
        return BufferPosition{&b, offset_from(b.address), b.bytes};
    return BufferPosition{nullptr, offset_from(access.nearest->base), access.nearest->bytes};
  }
  const NamedBuffer* best = nullptr;
  unsigned long long best_distance = 0;
  for (const NamedBuffer& b : buffers) {
    const std::uint64_t end = b.address + static_cast<std::uint64_t>(b.bytes);
    const unsigned long long distance = address < b.address ? b.address - address
                                        : address >= end    ? address - end + 1
                                                            : 0;
    if (best == nullptr || distance < best_distance) {
      best = &b;
      best_distance = distance;
    }
  }
  if (best == nullptr) return std::nullopt;
  return BufferPosition{best, offset_from(best->address), best->bytes};
}

}  // namespace labkit
