#include "resource_report.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <regex>
#include <sstream>

#include "text.h"

namespace labkit {
namespace {

bool ToInt(const std::string& s, int64_t& out) {
  try {
    size_t used = 0;
    out = std::stoll(s, &used);
    return used == s.size() && out >= 0;
  } catch (const std::exception&) {
    return false;
  }
}

// "used 1 barriers", "2048 bytes smem", "388 bytes cmem[0]", ... into `k`.
Status ReadUsedItem(const std::string& item, KernelResources& k) {
  static const std::regex kItem(R"(^(used )?(\d+) (registers|barriers|bytes (\S+)(.*))$)");
  std::smatch m;
  if (!std::regex_match(item, m, kItem)) return Status::Ok();  // textures, samplers...: not needed
  int64_t n = 0;
  if (!ToInt(m[2].str(), n)) return MakeError("cannot read the number in \"" + item + "\"");
  const std::string what = m[3].str(), unit = m[4].str();
  if (what == "registers")
    k.registers = n;
  else if (what == "barriers")
    k.barriers = n;
  else if (unit == "smem")
    k.static_shared_bytes = n;
  else if (unit.rfind("cmem[", 0) == 0)
    k.constant_bytes += n;
  else if (unit == "lmem")
    k.local_bytes = std::max(k.local_bytes, n);  // older ptxas
  return Status::Ok();
}

}  // namespace

Result<ResourceReport> ParsePtxasReport(const std::string& text) {
  static const std::regex kEntry(R"(Compiling entry function '([^']+)' for '([^']+)')");
  static const std::regex kProperties(R"(Function properties for (\S+))");
  static const std::regex kFrame(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex kUsed(R"(ptxas info\s*:\s*Used (.*)$)");
  static const std::regex kModule(
      R"(ptxas info\s*:\s*(\d+) bytes gmem(, (\d+) bytes cmem\[\d+\])?)");

  ResourceReport report;
  std::vector<bool> has_used;
  int64_t current = -1;  // the entry function a "Used" line belongs to
  std::string properties_of;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  auto fail = [&](const std::string& what) {
    return MakeError("ptxas output, line " + std::to_string(line_no) + ": " + what);
  };
  while (std::getline(in, line)) {
    ++line_no;
    std::smatch m;
    if (std::regex_search(line, m, kEntry)) {
      KernelResources k;
      k.mangled = m[1].str();
      k.arch = m[2].str();
      report.kernels.push_back(k);
      has_used.push_back(false);
      current = static_cast<int64_t>(report.kernels.size()) - 1;
    } else if (std::regex_search(line, m, kProperties)) {
      properties_of = m[1].str();
    } else if (std::regex_search(line, m, kFrame)) {
      // The frame line follows its "Function properties" line; device functions have one too.
      for (size_t i = report.kernels.size(); i-- > 0;) {
        KernelResources& k = report.kernels[i];
        if (k.mangled != properties_of) continue;
        if (!ToInt(m[1].str(), k.local_bytes) || !ToInt(m[2].str(), k.spill_store_bytes) ||
            !ToInt(m[3].str(), k.spill_load_bytes))
          return fail("cannot read \"" + Trimmed(line) + "\"");
        break;
      }
    } else if (std::regex_search(line, m, kUsed)) {
      if (current < 0) continue;  // a device function's line, in some ptxas versions
      KernelResources& k = report.kernels[static_cast<size_t>(current)];
      std::istringstream items(m[1].str());
      std::string item;
      while (std::getline(items, item, ','))
        if (Status st = ReadUsedItem(Trimmed(item), k); !st.ok()) return fail(st.error());
      k.max_threads = MaxThreadsPerBlock(k.registers);
      has_used[static_cast<size_t>(current)] = true;
      current = -1;
    } else if (std::regex_search(line, m, kModule)) {
      if (!ToInt(m[1].str(), report.global_bytes) ||
          (m[3].matched && !ToInt(m[3].str(), report.module_constant_bytes)))
        return fail("cannot read \"" + Trimmed(line) + "\"");
    }
  }
  for (size_t i = 0; i < report.kernels.size(); ++i)
    if (!has_used[i])
      return MakeError("ptxas output: no \"Used ... registers\" line for " +
                       report.kernels[i].mangled + " (truncated output?)");
  return report;
}

int64_t MaxThreadsPerBlock(int64_t registers) {
  if (registers <= 0) return 1024;
  const int64_t per_warp = (registers * 32 + 255) / 256 * 256;
  const int64_t warps = 65536 / per_warp;
  return std::min<int64_t>(1024, warps * 32);
}

nlohmann::json ToEmulatorJson(const ResourceReport& report) {
  nlohmann::json kernels = nlohmann::json::object();
  for (const KernelResources& k : report.kernels) {
    if (kernels.contains(k.mangled)) continue;
    kernels[k.mangled] = {{"registers", k.registers},
                          {"static_shared_bytes", k.static_shared_bytes},
                          {"local_bytes", k.local_bytes},
                          {"max_threads", k.max_threads},
                          {"barriers", k.barriers}};
  }
  return {{"kernels", kernels}};
}

std::string DemangleSymbol(const std::string& mangled) {
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && out ? std::string(out.get()) : mangled;
}

std::string FunctionName(const std::string& mangled) {
  std::string s = DemangleSymbol(mangled);
  const std::string anon = "(anonymous namespace)";
  for (size_t at; (at = s.find(anon)) != std::string::npos;) s.replace(at, anon.size(), "anon");
  // Cut at the parameter list: the first '(' outside template arguments.
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<') ++depth;
    if (s[i] == '>') --depth;
    if (s[i] == '(' && depth == 0) {
      s.resize(i);
      break;
    }
  }
  // Drop trailing template arguments: "void tmpl_kernel<64>" -> "void tmpl_kernel".
  if (!s.empty() && s.back() == '>') {
    depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
      if (s[i] == '>') ++depth;
      if (s[i] == '<' && --depth == 0) {
        s.resize(i);
        break;
      }
    }
  }
  // Drop the return type and the qualification.
  const size_t space = s.find_last_of(' ');
  if (space != std::string::npos) s = s.substr(space + 1);
  const size_t colons = s.rfind("::");
  if (colons != std::string::npos) s = s.substr(colons + 2);
  return s;
}

StudentKernel StudentKernelIn(const ResourceReport* report, const std::string& why_none,
                              bool emulated, const std::string& name) {
  StudentKernel kernel;
  if (name.empty()) return kernel;
  if (report == nullptr) {
    kernel.known = emulated;
    kernel.registers = 32;
    kernel.unknown_why = why_none;
    return kernel;
  }
  const std::vector<const KernelResources*> found = report->Find(name);
  if (found.empty()) {
    kernel.unknown_why = "the build reports no kernel named " + name;
    return kernel;
  }
  const KernelResources& k = *found.front();  // several architectures: the first, as emu's
  kernel.known = true;
  kernel.registers = k.registers;
  kernel.static_shared = k.static_shared_bytes;
  kernel.max_threads = k.max_threads;
  return kernel;
}

std::vector<const KernelResources*> ResourceReport::Find(const std::string& name) const {
  std::vector<const KernelResources*> found;
  for (const KernelResources& k : kernels)
    if (k.mangled == name || FunctionName(k.mangled) == name) found.push_back(&k);
  return found;
}

namespace {

// The first check of `t` that kernel `k` (`who` in the message) fails: the check's lab.yaml key,
// for the lab's hint, and what the kernel declares against it. An empty message: it passes all.
struct DeclarationBreach {
  const char* key = "";
  std::string message;
};

DeclarationBreach FirstBreach(const KernelResources& k, const std::string& who,
                              const Technique& t) {
  if (t.min_static_shared_bytes && k.static_shared_bytes < *t.min_static_shared_bytes)
    return {"min_static_shared_bytes",
            who + " declares " + std::to_string(k.static_shared_bytes) +
                " bytes of __shared__ memory; this exercise needs at least " +
                std::to_string(*t.min_static_shared_bytes) +
                " (the tiles of A and B, as __shared__ arrays of fixed size)"};
  if (t.max_static_shared_bytes && *t.max_static_shared_bytes == 0 && k.static_shared_bytes > 0)
    return {"max_static_shared_bytes",
            who + " declares " + std::to_string(k.static_shared_bytes) +
                " bytes of fixed-size __shared__ arrays; this exercise sizes its shared memory "
                "at launch instead: one `extern __shared__ float s[];` buffer, split into the "
                "tiles, and no __shared__ array of fixed size"};
  if (t.max_static_shared_bytes && k.static_shared_bytes > *t.max_static_shared_bytes)
    return {"max_static_shared_bytes",
            who + " declares " + std::to_string(k.static_shared_bytes) +
                " bytes of __shared__ memory; this exercise allows at most " +
                std::to_string(*t.max_static_shared_bytes)};
  if (t.uses_barrier && *t.uses_barrier && k.barriers == 0)
    return {"uses_barrier", who +
                                " never waits at __syncthreads(): threads would read a tile "
                                "before the others have finished loading it"};
  if (t.uses_barrier && !*t.uses_barrier && k.barriers > 0)
    return {"uses_barrier",
            who + " uses a barrier (__syncthreads()), which this exercise does without"};
  if (t.max_registers && k.registers > *t.max_registers)
    return {"max_registers", who + " uses " + std::to_string(k.registers) +
                                 " registers per thread; this exercise allows at most " +
                                 std::to_string(*t.max_registers)};
  if (t.max_local_bytes && k.local_bytes > *t.max_local_bytes)
    return {"max_local_bytes",
            who + " uses " + std::to_string(k.local_bytes) +
                " bytes of local memory per thread (a stack array, or registers spilled); this "
                "exercise allows at most " +
                std::to_string(*t.max_local_bytes)};
  return {};
}

}  // namespace

std::string CheckTechnique(const ResourceReport& report, const std::string& kernel,
                           const Technique& t) {
  const std::vector<const KernelResources*> found = report.Find(kernel);
  if (found.empty())
    return "no kernel named " + kernel +
           " was compiled from your file: its name is fixed by the interface header (was it "
           "renamed, or is it never used?)";
  for (const KernelResources* k : found) {
    const std::string who = found.size() > 1 ? DemangleSymbol(k->mangled) : kernel;
    const DeclarationBreach breach = FirstBreach(*k, who, t);
    if (!breach.message.empty()) return WithHint(t, breach.key, breach.message);
  }
  return "";
}

}  // namespace labkit
