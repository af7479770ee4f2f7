#include "line_map.h"

#include <algorithm>

namespace emu::rewrite {
namespace {

std::string_view skip_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

}  // namespace

bool parse_line_marker(std::string_view d, long* line, std::string* file) {
  if (d.empty() || d.front() != '#') return false;
  d = skip_blanks(d.substr(1));
  if (d.substr(0, 4) == "line") d = skip_blanks(d.substr(4));
  if (d.empty() || d.front() < '0' || d.front() > '9') return false;
  long n = 0;
  while (!d.empty() && d.front() >= '0' && d.front() <= '9') {
    n = n * 10 + (d.front() - '0');
    d.remove_prefix(1);
  }
  d = skip_blanks(d);
  std::string name;
  if (!d.empty() && d.front() == '"') {
    // The name keeps its escapes (`\\`, `\"`): it is only ever printed or written back into a
    // marker.
    std::size_t i = 1;
    while (i < d.size() && d[i] != '"') i += (d[i] == '\\') ? 2 : 1;
    name = std::string(d.substr(1, std::min(i, d.size()) - 1));
  }
  *line = n;
  *file = std::move(name);
  return true;
}

LineMap::LineMap(std::string_view source, const std::vector<Token>& tokens) {
  for (std::size_t i = 0; i < source.size(); ++i) {
    if (source[i] == '\n') newlines_.push_back(i);
  }
  std::string file;
  for (const Token& t : tokens) {
    long line = 0;
    if (t.kind != TokenKind::kDirective || !parse_line_marker(t.text, &line, &file)) continue;
    // The marker names the line *after* itself.
    const std::size_t nl = source.find('\n', t.end);
    markers_.push_back({nl == std::string_view::npos ? source.size() : nl + 1, line, file});
  }
}

std::size_t LineMap::line_index(std::size_t offset) const {
  return std::lower_bound(newlines_.begin(), newlines_.end(), offset) - newlines_.begin();
}

Location LineMap::at(std::size_t offset) const {
  // The last marker whose line starts at or before `offset`.
  auto it = std::upper_bound(markers_.begin(), markers_.end(), offset,
                             [](std::size_t off, const Marker& m) { return off < m.line_start; });
  if (it == markers_.begin()) return {"", static_cast<long>(line_index(offset)) + 1};
  --it;
  return {it->file, it->line + static_cast<long>(line_index(offset) - line_index(it->line_start))};
}

std::size_t LineMap::newlines_between(std::size_t begin, std::size_t end) const {
  return line_index(end) - line_index(begin);
}

}  // namespace emu::rewrite
