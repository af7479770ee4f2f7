#include "journal.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "text.h"

namespace labkit {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

Status WriteAllAndSync(int fd, const std::string& text, const std::string& what) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return MakeError("cannot write " + what + ": " + std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  if (fsync(fd) != 0) return MakeError("cannot flush " + what + ": " + std::strerror(errno));
  return Status::Ok();
}

void SyncFolder(const fs::path& folder) {
  const int fd = open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    fsync(fd);  // makes the rename itself durable
    close(fd);
  }
}

}  // namespace

Status WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string temp = path + ".tmp." + std::to_string(getpid());
  // A fresh file, never one already there (a link left in the folder is not written through).
  unlink(temp.c_str());
  const int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return MakeError("cannot create " + temp + ": " + std::strerror(errno));
  Status written = WriteAllAndSync(fd, text, temp);
  close(fd);
  if (!written) {
    unlink(temp.c_str());
    return written;
  }
  if (rename(temp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    unlink(temp.c_str());
    return MakeError("cannot move " + temp + " to " + path + ": " + why);
  }
  SyncFolder(fs::path(path).parent_path());
  return Status::Ok();
}

Result<Journal> Journal::Open(const std::string& path) {
  Journal journal(path);
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_object() && j.value("type", "") == "batch" && j.contains("seed") &&
        j["seed"].is_string()) {
      BatchInfo info;
      info.seed = std::strtoull(j["seed"].get<std::string>().c_str(), nullptr, 10);
      info.kit_version = j.value("kit_version", "");
      journal.batch_ = info;
      continue;
    }
    if (j.is_discarded() || !j.is_object() || !j.contains("slug")) continue;
    JournalEntry e;
    e.slug = j.value("slug", "");
    e.name = j.value("name", "");
    e.status = j.value("status", "");
    e.reason = j.value("reason", "");
    e.total = j.value("total", 0.0);
    e.max_total = j.value("max_total", 0.0);
    journal.entries_[e.slug] = e;
  }
  return journal;
}

Status Journal::AppendLine(const std::string& line) {
  const int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return MakeError("cannot open the journal " + path_ + ": " + std::strerror(errno));
  // A torn line from an earlier kill must not swallow this one: start on a fresh line.
  const Status written = WriteAllAndSync(fd, "\n" + line + "\n", path_);
  close(fd);
  return written;
}

Status Journal::RecordBatch(const BatchInfo& info) {
  // The seed as a string: JSON readers that hold numbers as doubles would round a 64-bit seed.
  const json j = {{"type", "batch"},
                  {"seed", std::to_string(info.seed)},
                  {"kit_version", ValidUtf8(info.kit_version)}};
  std::lock_guard<std::mutex> lock(mutex_);
  const Status written = AppendLine(j.dump());
  if (written) batch_ = info;
  return written;
}

Status Journal::Append(const JournalEntry& e) {
  // The reason may quote a compiler or a file name: valid UTF-8, or the dump would throw.
  const json j = {{"slug", e.slug},     {"name", ValidUtf8(e.name)},
                  {"status", e.status}, {"reason", ValidUtf8(e.reason)},
                  {"total", e.total},   {"max_total", e.max_total}};
  std::lock_guard<std::mutex> lock(mutex_);
  const Status written = AppendLine(j.dump());
  if (written) entries_[e.slug] = e;
  return written;
}

const JournalEntry* Journal::Find(const std::string& slug) const {
  const auto it = entries_.find(slug);
  return it == entries_.end() ? nullptr : &it->second;
}

}  // namespace labkit
