#include "sandbox_policy.h"

#include <filesystem>

#include "sandbox_host.h"

namespace labkit {
namespace fs = std::filesystem;
using sandbox_host::Exists;
using sandbox_host::IsUnder;
using sandbox_host::Normal;

SandboxPolicy SystemSandboxPolicy(const std::string& scratch_dir) {
  SandboxPolicy policy;
  policy.scratch_dir = Normal(scratch_dir);
  // /opt/nvidia: Nsight Compute, whose ncu counts the GPU's loads for the technique checks.
  for (const char* dir : {"/usr/local/cuda", "/opt/cuda", "/opt/nvidia"}) {
    std::error_code ec;
    if (Exists(dir)) policy.read_only.push_back(fs::canonical(dir, ec).string());
  }
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/dev", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("nvidia", 0) == 0) policy.devices.push_back(entry.path().string());
  }
  return policy;
}

std::vector<std::string> ToolInstallation(const std::string& tool) {
  std::vector<std::string> folders;
  if (tool.empty()) return folders;
  std::error_code ec;
  for (const fs::path& path : {fs::path(tool), fs::canonical(tool, ec)}) {
    if (path.empty()) continue;
    const fs::path folder = path.parent_path();
    // bin/.. is the installation; a tool outside any bin/ folder shows only its own folder.
    folders.push_back((folder.filename() == "bin" ? folder.parent_path() : folder).string());
  }
  return folders;
}

SandboxPolicy GradingSandboxPolicy(const Manifest& manifest, const std::string& lab,
                                   const std::string& src_dir, const std::string& work_dir,
                                   const std::vector<std::string>& extra_hidden) {
  SandboxPolicy policy = SystemSandboxPolicy(work_dir);
  auto show = [&](const std::string& path) {
    if (!path.empty()) policy.read_only.push_back(Normal(path));
  };
  show(src_dir);
  show(manifest.LabDir(lab));
  show(manifest.common_include);
  show(manifest.harness_include);
  show(manifest.boost_context);
  show(manifest.zydis);
  // A compiler is more than its driver: g++ runs cc1plus from ../libexec, and a driver may be a
  // script or link that starts the real one beside it (/opt/gcc/bin/g++ -> g++-real). Its whole
  // installation is shown, named as the manifest names it and as its links resolve.
  for (const std::string* tool : {&manifest.cxx, &manifest.nvcc})
    for (const std::string& folder : ToolInstallation(*tool)) show(folder);
  if (manifest.emu_backend) {
    show(fs::path(manifest.emu_cxx).parent_path().string());  // emu-cxx and emu-rewrite
    // emu-cxx's force-included header and include folder (baked into emu-cxx at build time).
    show(manifest.source_dir + "/emu/runtime/include");
  }
  // Only the lab's own libraries from the build folder: the rest of it holds objects built from
  // solutions/ (benchmarks, tests) and the datasets.
  for (const auto* libs : {&manifest.gpu_libs, &manifest.emu_libs}) {
    const auto it = libs->find(lab);
    if (it != libs->end())
      for (const std::string& lib : it->second) show(lib);
  }
  for (const std::string& lib : manifest.gpu_replay_libs) show(lib);  // the kit's replay program
  for (const std::string& hidden :
       {manifest.source_dir + "/solutions", manifest.source_dir + "/.git", manifest.data_dir})
    if (!hidden.empty()) policy.hidden.push_back(Normal(hidden));
  for (const std::string& hidden : extra_hidden)
    if (!hidden.empty()) policy.hidden.push_back(Normal(hidden));
  return policy;
}

std::string WritableDir(const SandboxPolicy& policy, const Command& command) {
  if (policy.scratch_dir.empty() || command.cwd.empty()) return policy.scratch_dir;
  const std::string cwd = Normal(command.cwd);
  return IsUnder(cwd, policy.scratch_dir) ? cwd : policy.scratch_dir;
}

}  // namespace labkit
