#include "instruction_policy.h"

#include <algorithm>
#include <sstream>

namespace labkit {
namespace {

std::string Trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// "int    $0x80" -> "int $0x80": objdump pads the mnemonic with spaces.
std::string Collapse(const std::string& s) {
  std::string out;
  for (char c : s) {
    if ((c == ' ' || c == '\t') && (out.empty() || out.back() == ' ')) continue;
    out += c == '\t' ? ' ' : c;
  }
  return Trim(out);
}

bool IsSystemCall(const std::string& instruction) {
  if (instruction == "syscall" || instruction == "sysenter") return true;
  // The 32-bit gate: `int $0x80`, in any spelling of the number objdump might print.
  return instruction.rfind("int $0x80", 0) == 0 || instruction.rfind("int $128", 0) == 0;
}

// The instruction of a listing line ("  1f:\tsyscall", --no-show-raw-insn), without objdump's
// comment; "" for a line that holds none (a function's label, a header).
std::string InstructionOf(const std::string& line) {
  const auto colon = line.find(":\t");
  if (colon == std::string::npos) return "";
  std::string instruction = line.substr(colon + 2);
  if (const auto comment = instruction.find('#'); comment != std::string::npos)
    instruction.resize(comment);
  return Collapse(instruction);
}

// The mnemonic, past the prefixes objdump may print before it ("{vex} vfmadd231ps ...",
// "lock add ...").
std::string MnemonicOf(const std::string& instruction) {
  std::istringstream words(instruction);
  std::string word;
  while (words >> word) {
    if (word.front() == '{' || word == "lock" || word == "data16" || word == "addr32" ||
        word == "notrack" || word == "bnd" || word.rfind("rep", 0) == 0 ||
        word.rfind("rex", 0) == 0)
      continue;
    return word;
  }
  return "";
}

bool IsFusedMultiplyAdd(const std::string& mnemonic) {
  for (const char* family : {"vfmadd", "vfmsub", "vfnmadd", "vfnmsub"})
    if (mnemonic.rfind(family, 0) == 0) return true;
  return false;
}

}  // namespace

bool FreeOfFusedMultiplyAdd(const std::string& listing) {
  // "matmul.cu.o:     file format elf64-x86-64", objdump's header of the object.
  if (listing.find("file format elf64-x86-64") == std::string::npos) return false;
  std::istringstream lines(listing);
  std::string line;
  while (std::getline(lines, line)) {
    const std::string instruction = InstructionOf(line);
    // Bytes objdump could not decode (".byte 0x62", or "(bad)") might be an FMA of an extension
    // newer than it.
    if (instruction.find("(bad)") != std::string::npos || instruction.rfind(".byte", 0) == 0)
      return false;
    if (IsFusedMultiplyAdd(MnemonicOf(instruction))) return false;
  }
  return true;
}

std::vector<InstructionRefusal> SystemCallInstructions(const std::string& listing) {
  std::vector<InstructionRefusal> found;
  std::istringstream lines(listing);
  std::string line, function;
  while (std::getline(lines, line)) {
    // "0000000000000000 <sys3(long, long, long, long)>:" opens a function.
    const auto open = line.find(" <");
    if (!line.empty() && line.back() == ':' && open != std::string::npos &&
        line.find('\t') == std::string::npos) {
      function = line.substr(open + 2, line.size() - open - 4);
      continue;
    }
    const std::string instruction = InstructionOf(line);
    if (!IsSystemCall(instruction)) continue;
    const InstructionRefusal r{instruction, function};
    const bool seen = std::any_of(found.begin(), found.end(), [&](const InstructionRefusal& f) {
      return f.instruction == r.instruction && f.function == r.function;
    });
    if (!seen) found.push_back(r);
  }
  return found;
}

std::string InstructionRefusalMessage(const std::string& file,
                                      const std::vector<InstructionRefusal>& refused) {
  std::string where;
  for (std::size_t i = 0; i < refused.size() && i < 4; ++i) {
    where += (i == 0 ? "" : ", ") + std::string("the ") + refused[i].instruction + " instruction" +
             (refused[i].function.empty() ? "" : " in " + refused[i].function);
  }
  if (refused.size() > 4) where += " and " + std::to_string(refused.size() - 4) + " more";
  return file + " makes system calls itself (" + where +
         "), which the grader does not allow: a submission reaches the system only through the "
         "library functions the lab allows. Remove the inline assembly.";
}

}  // namespace labkit
