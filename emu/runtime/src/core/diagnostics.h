// Diagnostics: one JSON object per line in LABKIT_EMU_REPORT (shapes in docs/DESIGN.md), plus a
// one-line message for people on stderr. The line builder uses no heap and only write(2), so the
// fault handler can use it too.
#pragma once
#include <cstddef>
#include <cstdint>

#include "labkit_emu/vector_types.h"

namespace emu::detail {

// The exit status of a run a fatal diagnostic ended. The emulator's own: labgrade does not read it
// (the student's code in the process could exit with it too), so it is no part of the harness
// protocol (common/harness/protocol/harness_protocol.h).
constexpr int kFatalExitCode = 86;

class JsonLine {
 public:
  explicit JsonLine(const char* kind);
  JsonLine& str(const char* key, const char* value);
  JsonLine& num(const char* key, long long value);
  JsonLine& hex(const char* key, uintptr_t value);
  JsonLine& dims(const char* key, uint3 value);
  // A JSON array of strings: values[0..count).
  JsonLine& strs(const char* key, const char* const* values, int count);
  // Closes the object and the line; the text stays valid until the builder is destroyed.
  const char* finish();
  size_t size() const { return len_; }

 private:
  void key(const char* k);
  void raw(const char* s);
  void raw_char(char c);
  void quoted(const char* s);

  char buf_[4096];
  size_t len_ = 0;
  bool finished_ = false;
};

// Opens the report file named by LABKIT_EMU_REPORT (once; a no-op afterwards).
void open_report();
// Appends a finished line to the report (when there is one) and prints `human` on stderr.
void emit(JsonLine& line, const char* human);

// Formats numbers without the heap (for the fault handler's messages).
char* format_unsigned(char* out, unsigned long long value, int base);
}  // namespace emu::detail
