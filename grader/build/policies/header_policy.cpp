#include "header_policy.h"

#include <sstream>

#include "untrusted_file.h"

namespace labkit {

namespace {

struct RefusedHeader {
  const char* name;
  const char* why;
};

constexpr RefusedHeader kRefusedHeaders[] = {
    {"cuda_occupancy.h",
     "it is the occupancy calculator the CUDA runtime answers cudaOccupancy* with, so calling it "
     "is calling the occupancy API; work the numbers out from cudaGetDeviceProperties and "
     "cudaFuncGetAttributes as the handout explains"},
};

std::string FileName(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The 1-based line of the first `#include` that names `name`, or 0 (included through another
// header, or spelled through a macro).
int IncludeLine(const std::string& source_text, const std::string& name) {
  std::istringstream lines(source_text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number)
    if (line.find("include") != std::string::npos && line.find(name) != std::string::npos)
      return number;
  return 0;
}

}  // namespace

std::vector<HeaderRefusal> RefusedHeaders(const std::string& make_rule) {
  std::vector<HeaderRefusal> refused;
  std::istringstream words(make_rule);
  std::string word;
  while (words >> word) {
    if (word == "\\" || word.back() == ':') continue;  // a continuation, or the rule's target
    for (const RefusedHeader& header : kRefusedHeaders)
      if (FileName(word) == header.name) refused.push_back({word, header.why});
  }
  return refused;
}

std::string HeaderRefusalMessage(const std::string& file, const std::string& source_text,
                                 const std::vector<HeaderRefusal>& refused) {
  std::string message;
  for (const HeaderRefusal& r : refused) {
    const std::string name = FileName(r.header);
    const int line = IncludeLine(source_text, name);
    message += (message.empty() ? "" : "\n") + file + " includes " + name +
               (line > 0 ? " (line " + std::to_string(line) + ")" : " (through another header)") +
               ", which no submission may include: " + r.why + ".";
  }
  return message;
}

Result<std::string> IncludedHeadersRefusal(const std::string& dependency_list,
                                           const std::string& file,
                                           const std::string& source_text) {
  // Bounded as a source is: a list longer than any real one is not read on.
  constexpr std::size_t kMaxListBytes = 4 << 20;
  const auto included = ReadUntrustedFile(dependency_list, kMaxListBytes);
  if (!included) return MakeError("the list of headers " + file + " included: " + included.error());
  const std::vector<HeaderRefusal> refused = RefusedHeaders(*included);
  return refused.empty() ? std::string() : HeaderRefusalMessage(file, source_text, refused);
}

}  // namespace labkit
