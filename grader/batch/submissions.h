// Finding a class's submissions in a folder and unpacking them: one folder, zip or tar per student.
// Archives are unpacked safely (no absolute paths, no "..", no links out, size and entry caps); a
// lone top folder and stray files (__MACOSX, .DS_Store) are looked through.
#pragma once

#include <string>
#include <vector>

#include "result.h"

namespace labkit {

struct Submission {
  std::string name;    // as the instructor sees it: the folder's or archive's name, stem only
  std::string slug;    // safe for paths: [A-Za-z0-9._-] only, unique within the batch
  std::string path;    // the folder or archive
  bool archive = false;
  // Why it cannot be graded before anything is opened ("a symbolic link"), or "".
  std::string problem;
};

// Every entry of `dir` that can be a submission, sorted by name. Hidden files are skipped.
Result<std::vector<Submission>> FindSubmissions(const std::string& dir);

// A file-system-safe name for `name`, unique through a short hash of the original when it had to
// change ("José García" -> "Jos_Garc_a-1f3a9c").
std::string Slugify(const std::string& name);

// Unpacks an archive into `dest` (created). Errors name the cause ("not a zip or tar archive",
// "more than 50 MiB once unpacked", "an entry escapes the folder: ../x").
Status UnpackArchive(const std::string& archive, const std::string& dest);

// The folder that holds the lab's files: `root` itself, or the shallowest folder below it that
// holds the first of `files` (students nest their work in folders of their own).
std::string FindSourceFolder(const std::string& root, const std::vector<std::string>& files);

}  // namespace labkit
