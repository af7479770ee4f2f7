// For tests: a small HTML well-formedness check (every element closed, in order; void elements
// and self-closed SVG shapes allowed) and the list of elements met, so that a test can say "a
// table, an svg, no script" about a page labgrade wrote.
#pragma once

#include <cctype>
#include <string>
#include <vector>

namespace labkit {

struct HtmlShape {
  std::string error;                  // "" when well formed
  std::vector<std::string> elements;  // start tags, in order, lower case
  int Count(const std::string& name) const {
    int n = 0;
    for (const std::string& e : elements) n += e == name;
    return n;
  }
};

inline HtmlShape ParseHtmlShape(const std::string& html) {
  static const std::vector<std::string> kVoid = {"meta", "br", "hr", "img", "input", "link"};
  HtmlShape shape;
  std::vector<std::string> open;
  for (std::size_t at = html.find('<'); at != std::string::npos; at = html.find('<', at + 1)) {
    const std::size_t end = html.find('>', at);
    if (end == std::string::npos) {
      shape.error = "a tag is never closed with '>'";
      return shape;
    }
    const std::string tag = html.substr(at + 1, end - at - 1);
    if (tag.rfind("!", 0) == 0) continue;  // <!DOCTYPE html>
    const bool closing = !tag.empty() && tag[0] == '/';
    std::string name;
    for (std::size_t i = closing ? 1 : 0;
         i < tag.size() && (std::isalnum(static_cast<unsigned char>(tag[i])) != 0); ++i)
      name += static_cast<char>(std::tolower(static_cast<unsigned char>(tag[i])));
    if (name.empty()) {
      shape.error = "'<' that starts no tag: " + html.substr(at, 20);
      return shape;
    }
    if (closing) {
      if (open.empty() || open.back() != name) {
        shape.error =
            "</" + name + "> closes " + (open.empty() ? "nothing" : "<" + open.back() + ">");
        return shape;
      }
      open.pop_back();
      continue;
    }
    shape.elements.push_back(name);
    const bool self_closed = tag.back() == '/';
    bool is_void = false;
    for (const std::string& v : kVoid) is_void = is_void || v == name;
    if (!self_closed && !is_void) open.push_back(name);
  }
  if (!open.empty()) shape.error = "<" + open.back() + "> is never closed";
  return shape;
}

}  // namespace labkit
