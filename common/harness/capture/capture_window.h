// What the student's function did while it ran, as the link-time wrappers saw it: a log that takes
// records only while a capture is open (one at a time; the harness opens one around each call of
// the student's function, so its own launches and copies stay out). Shared by the launch and the
// transfer logs.
#pragma once

#include <cstddef>
#include <mutex>
#include <utility>
#include <vector>

namespace labkit {

template <class Record>
class CaptureWindow {
 public:
  // Kept small: a student loop that launches or copies a million times must not eat the harness's
  // memory. The first records are the telling ones.
  static constexpr std::size_t kMaxRecords = 64;

  static void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    records_.clear();
    capturing_ = true;
  }
  static void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    capturing_ = false;
  }
  // Takes no records until resume(was): the kit's replay program notes a copy of its own as
  // the student's call it stands for, and the copy's own wrap must not note it again.
  static bool pause() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(capturing_, false);
  }
  static void resume(bool was) {
    std::lock_guard<std::mutex> lock(mutex_);
    capturing_ = was;
  }
  static bool capturing() {
    std::lock_guard<std::mutex> lock(mutex_);
    return capturing_;
  }
  static std::vector<Record> take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(records_, {});
  }
  static void add(Record record) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (capturing_ && records_.size() < kMaxRecords) records_.push_back(std::move(record));
  }

 private:
  inline static std::mutex mutex_;
  inline static bool capturing_ = false;
  inline static std::vector<Record> records_;
};

}  // namespace labkit
