// The batch's memory: one JSON line per finished submission, appended and flushed to disk before
// the next one is started, so a batch killed at any moment (SIGKILL included) resumes with the
// same command, redoes nothing finished and loses nothing. Result files are written whole or not
// at all (a temporary file renamed into place).
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "result.h"

namespace labkit {

// What a whole batch is graded with, recorded once at its start: resuming with another seed would
// grade one class on two input sets, and another kit version by other rules.
struct BatchInfo {
  uint64_t seed = 0;
  std::string kit_version;
};

struct JournalEntry {
  std::string slug;
  std::string name;
  std::string status;  // "graded" or "not_graded" (a grader fault: retried on resume)
  std::string reason;  // why not graded
  double total = 0;
  double max_total = 0;
};

class Journal {
 public:
  // Reads what an earlier run recorded (a torn last line, from a kill mid-write, is ignored).
  static Result<Journal> Open(const std::string& path);

  // Appends and flushes to disk; safe to call from several threads.
  Status Append(const JournalEntry& entry);

  // Records what the batch is graded with (a later record replaces an earlier one).
  Status RecordBatch(const BatchInfo& info);
  // The latest BatchInfo recorded; none in a new journal.
  const std::optional<BatchInfo>& batch() const { return batch_; }

  // The latest entry for `slug`, if any.
  const JournalEntry* Find(const std::string& slug) const;
  const std::map<std::string, JournalEntry>& entries() const { return entries_; }

  Journal(Journal&& other) noexcept
      : path_(std::move(other.path_)),
        entries_(std::move(other.entries_)),
        batch_(std::move(other.batch_)) {}

 private:
  explicit Journal(std::string path) : path_(std::move(path)) {}
  std::string path_;
  std::map<std::string, JournalEntry> entries_;
  std::optional<BatchInfo> batch_;
  std::mutex mutex_;
  Status AppendLine(const std::string& line);
};

// Writes `text` to `path` atomically: a temporary file beside it, flushed, then renamed.
Status WriteFileAtomically(const std::string& path, const std::string& text);

}  // namespace labkit
