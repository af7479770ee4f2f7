// The frame of every HTML page labgrade writes (feedback.html, class.html): one self-contained
// file, inline CSS, no script, so that it opens anywhere and can be mailed as it is.
#pragma once

#include <string>

namespace labkit {

// A whole document around `body` (already HTML); `title` is escaped here.
std::string HtmlDocument(const std::string& title, const std::string& body);

// <pre> of `text`, escaped.
std::string HtmlPre(const std::string& text);

}  // namespace labkit
