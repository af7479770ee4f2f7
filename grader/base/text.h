// Small text helpers shared by the parsers of tool output (ptxas, ThreadSanitizer, nvidia-smi) and
// by every writer of a message (JSON, CSV, HTML).
#pragma once

#include <string>

namespace labkit {

// `text` without the blanks (spaces, tabs, carriage returns, newlines) at either end.
std::string Trimmed(const std::string& text);

// `text` as valid UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), which
// every JSON writer demands: each invalid byte becomes U+FFFD, control bytes other than newline
// and tab become spaces. Messages quote compiler output and file names, which may be anything (a
// binary file handed in as source); every message is passed through this before it is stored.
std::string ValidUtf8(const std::string& text);

// `text` safe inside HTML elements and quoted attributes (& < > " ' escaped), made valid UTF-8.
std::string HtmlEscaped(const std::string& text);

}  // namespace labkit
