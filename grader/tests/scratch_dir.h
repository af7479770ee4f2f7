// A folder of a test's own under the temporary directory (mkdtemp), removed when the test is done.
// A fixed name such as /tmp/labkit_hostile_<case> is shared by every run of the test on the
// machine: the cpu and gpu entries of one test under ctest -j, or two build folders tested at
// once, would then grade into (and delete) each other's files.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>

namespace labkit {

class ScratchDir {
 public:
  // `prefix` names the folder for a person looking at /tmp: "labkit_hostile_<case>".
  explicit ScratchDir(const std::string& prefix) {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (mkdtemp(pattern.data()) == nullptr)
      throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ec;  // a destructor must not throw; a folder left behind is only clutter
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

}  // namespace labkit
