#include "manifest.h"

#include <fstream>

#include <nlohmann/json.hpp>

namespace labkit {

bool LoadManifest(const std::string& path, Manifest& m, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot read the build manifest " + path + " (was the kit built?)";
    return false;
  }
  try {
    const auto j = nlohmann::json::parse(in);
    m.source_dir = j.at("source_dir");
    m.build_dir = j.at("build_dir");
    m.data_dir = j.value("data_dir", "");
    m.cxx = j.at("cxx");
    m.nvcc = j.value("nvcc", "");
    m.cuda_architectures = j.value("cuda_architectures", "90");
    m.gpu_backend = j.value("gpu_backend", false);
    m.emu_backend = j.value("emu_backend", false);
    m.emu_cxx = j.value("emu_cxx", "");
    m.boost_context = j.value("boost_context", "");
    m.zydis = j.value("zydis", "");
    m.common_include = j.at("common_include");
    m.harness_include = j.at("harness_include");
    m.gpu_libs = j.value("gpu_libs", decltype(m.gpu_libs){});
    m.emu_libs = j.value("emu_libs", decltype(m.emu_libs){});
    m.gpu_replay_libs = j.value("gpu_replay_libs", decltype(m.gpu_replay_libs){});
    m.lab_dirs = j.value("lab_dirs", decltype(m.lab_dirs){});
  } catch (const std::exception& e) {
    error = path + ": " + e.what();
    return false;
  }
  return true;
}

std::string DefaultManifestPath() { return LABKIT_MANIFEST_PATH; }

std::string KitVersion() { return LABKIT_VERSION; }

}  // namespace labkit
