#include "gradescope_bundle.h"

#ifdef LABKIT_HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>
#endif
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace labkit {
namespace fs = std::filesystem;

namespace {

// What the kit needs to build and grade; builds, git data and local scratch stay behind.
bool Skip(const fs::path& relative) {
  const std::string first = relative.begin()->string();
  // solutions/ stays behind too: Gradescope needs no reference (speed is not graded there), and a
  // student's code running on that machine must not be able to read it.
  return first.rfind("build", 0) == 0 || first == ".git" || first == ".carry" ||
         first == ".gl" || first == ".whl" || first == "solutions";
}

Status CopySources(const std::string& from, const fs::path& to) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(from, ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    const fs::path relative = fs::relative(it->path(), from);
    if (Skip(relative)) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_directory()) {
      fs::create_directories(to / relative, ec);
    } else if (it->is_regular_file()) {
      fs::copy_file(it->path(), to / relative, fs::copy_options::overwrite_existing, ec);
    }
    if (ec) return MakeError("cannot copy " + it->path().string() + ": " + ec.message());
  }
  return Status::Ok();
}

Status WriteExecutable(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  std::error_code ec;
  fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec, ec);
  if (ec) return MakeError("cannot make " + path.string() + " executable: " + ec.message());
  return Status::Ok();
}

Status Zip(const fs::path& root, const fs::path& zip_path) {
#ifndef LABKIT_HAVE_LIBARCHIVE
  return MakeError("this build of labgrade has no libarchive: zip " + root.string() +
                   " yourself (setup.sh, run_autograder and source/ at the top)");
#else
  struct archive* out = archive_write_new();
  archive_write_set_format_zip(out);
  if (archive_write_open_filename(out, zip_path.c_str()) != ARCHIVE_OK) {
    archive_write_free(out);
    return MakeError("cannot write " + zip_path.string());
  }
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (!it->is_regular_file() || it->path() == zip_path) continue;
    const std::string name = fs::relative(it->path(), root).string();
    std::ifstream in(it->path(), std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const std::string data = bytes.str();
    struct stat st{};
    stat(it->path().c_str(), &st);
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, name.c_str());
    archive_entry_set_size(entry, static_cast<la_int64_t>(data.size()));
    archive_entry_set_filetype(entry, AE_IFREG);
    archive_entry_set_perm(entry, st.st_mode & 0777);
    archive_write_header(out, entry);
    archive_write_data(out, data.data(), data.size());
    archive_entry_free(entry);
  }
  archive_write_close(out);
  archive_write_free(out);
  return Status::Ok();
#endif
}

}  // namespace

// Gradescope unpacks the uploaded zip into /autograder/source, so the kit (the zip's source/)
// lands in /autograder/source/source, and copies run_autograder to /autograder. The root can be
// moved (LABKIT_AUTOGRADER_ROOT) so the kit's own test can run both scripts in a scratch folder.
std::string GradescopeSetupScript() {
  return R"SH(#!/usr/bin/env bash
# Gradescope runs this once when the autograder image is built: dependencies from Ubuntu's
# packages, then the kit (CPU backend; nvcc from nvidia-cuda-toolkit for the resource report).
set -euo pipefail
kit="${LABKIT_AUTOGRADER_ROOT:-/autograder}/source/source"
if [ "${LABKIT_SETUP_SKIP_APT:-0}" != 1 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake g++ make libyaml-cpp-dev \
    nlohmann-json3-dev libgtest-dev libboost-context-dev libzydis-dev libarchive-dev libcli11-dev \
    binutils python3
  # Optional: nvcc lets the grader read kernels' shared memory and registers (technique checks
  # and the occupancy API). Without it those checks are reported as not run.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nvidia-cuda-toolkit || true
fi
# What grading on the CPU backend needs, as ./kit check builds it: no GPU backend (no GPU there),
# no tests, no benchmarks.
cmake -S "$kit" -B "$kit/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLABKIT_BUILD_TESTS=OFF \
  -DLABKIT_ENABLE_GPU=OFF
cmake --build "$kit/build" -j "$(nproc)" --target labkit_grading
)SH";
}

std::string GradescopeRunScript(const LabSpec& spec) {
  return R"SH(#!/usr/bin/env bash
# Gradescope runs this for every submission; the student's files are in /autograder/submission.
# Correctness only: Gradescope has no GPU.
set -uo pipefail
root="${LABKIT_AUTOGRADER_ROOT:-/autograder}"
mkdir -p "$root/results"
"$root/source/source/build/grader/app/labgrade" check )SH" +
         spec.id + R"SH( --src "$root/submission" --backend cpu --gradescope "$root/results"
)SH";
}

Status WriteGradescopeBundle(const Manifest& manifest, const LabSpec& spec, const std::string& dir) {
  const fs::path root(dir);
  std::error_code ec;
  fs::remove_all(root / "source", ec);
  fs::create_directories(root / "source", ec);
  if (ec) return MakeError("cannot create " + dir + ": " + ec.message());
  if (Status s = CopySources(manifest.source_dir, root / "source"); !s) return s;
  if (Status s = WriteExecutable(root / "setup.sh", GradescopeSetupScript()); !s) return s;
  if (Status s = WriteExecutable(root / "run_autograder", GradescopeRunScript(spec)); !s) return s;
  fs::remove(root / "autograder.zip", ec);
  return Zip(root, root / "autograder.zip");
}

}  // namespace labkit
