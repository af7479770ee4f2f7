// Small text helpers shared by the parsers of tool output (ptxas, ThreadSanitizer, nvidia-smi).
#pragma once

#include <string>

namespace labkit {

// `text` without the blanks (spaces, tabs, carriage returns, newlines) at either end.
std::string Trimmed(const std::string& text);

}  // namespace labkit
