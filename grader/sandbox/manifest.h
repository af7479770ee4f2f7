// What CMake built and where: read from build/labkit_manifest.json, so labgrade never guesses a
// path or a flag.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace labkit {

struct Manifest {
  std::string source_dir;
  std::string build_dir;
  std::string data_dir;
  std::string cxx;
  std::string nvcc;  // empty where the CUDA toolkit is missing
  std::string cuda_architectures;
  bool gpu_backend = false;
  bool emu_backend = false;
  std::string emu_cxx;
  std::string boost_context;
  std::string zydis;  // the instruction decoder the CPU backend's runtime links (shared library)
  std::string common_include;
  std::string harness_include;
  std::map<std::string, std::vector<std::string>> gpu_libs;  // lab -> static libraries, in order
  std::map<std::string, std::vector<std::string>> emu_libs;
  // The kit's replay program's libraries (GPU; common/harness/driver/replay_only_program.cpp),
  // linked with no student object: empty where the kit was built without the GPU backend.
  std::vector<std::string> gpu_replay_libs;

  // lab -> its folder, for every lab add_lab() built (cmake/LabKit.cmake): labs/<lab>, or a test's
  // fixture lab elsewhere.
  std::map<std::string, std::string> lab_dirs;

  // The lab's folder (lab.yaml, the frozen header); labs/<lab> for a lab the build does not list.
  std::string LabDir(const std::string& lab) const {
    const auto it = lab_dirs.find(lab);
    return it != lab_dirs.end() ? it->second : source_dir + "/labs/" + lab;
  }
};

// Reads the manifest; on failure returns false and says why in `error`.
bool LoadManifest(const std::string& path, Manifest& manifest, std::string& error);

// The manifest of the build this labgrade belongs to (baked in at compile time).
std::string DefaultManifestPath();

// This kit's version: the project's, plus the git commit it was configured at ("0.1+1a2b3c4d5e6f").
std::string KitVersion();

}  // namespace labkit
