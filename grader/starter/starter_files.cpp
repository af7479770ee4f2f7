#include "starter_files.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "starter_gen.h"

namespace labkit {
namespace fs = std::filesystem;

namespace {

bool ReadFile(const fs::path& path, std::string& text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  text = s.str();
  return true;
}

}  // namespace

Status SyncStarter(const std::string& source_dir, const LabSpec& spec, bool check_only) {
  const fs::path solution_dir = fs::path(source_dir) / "solutions" / spec.id;
  const fs::path starter_dir = fs::path(source_dir) / "starter" / spec.id;
  std::string drifted;
  for (const std::string& file : spec.student_files) {
    std::string solution;
    if (!ReadFile(solution_dir / file, solution))
      return MakeError("cannot read " + (solution_dir / file).string());
    const StarterResult starter = MakeStarter(solution);
    if (!starter.ok) return MakeError((solution_dir / file).string() + ":" + starter.error);
    std::string committed;
    const bool exists = ReadFile(starter_dir / file, committed);
    if (exists && committed == starter.text) continue;
    if (check_only) {
      drifted += "\n  " + (starter_dir / file).string() +
                 (exists ? " differs from" : " is missing; it is made from") + " " +
                 (solution_dir / file).string();
      continue;
    }
    fs::create_directories(starter_dir);
    std::ofstream(starter_dir / file, std::ios::binary) << starter.text;
  }
  if (!drifted.empty())
    return MakeError("the committed starter is out of date:" + drifted +
                     "\nrun: labgrade starter " + spec.id + " (and commit the result)");
  return Status::Ok();
}

}  // namespace labkit
