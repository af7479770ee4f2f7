#include "rewrite.h"

#include "launch_kernel_cast.h"
#include "launch_rewrite.h"
#include "made_directives.h"
#include "shared_rewrite.h"
#include "shared_type_names.h"
#include "source.h"
#include "uncounted_access.h"

namespace emu::rewrite {

RewriteResult rewrite_source(std::string_view source, bool counted) {
  // A __shared__ variable's type defined in its declaration is moved in front first, so that the
  // passes below see a declaration they can rewrite (shared_type_names.h).
  const std::string named = name_shared_types(source);
  const std::string_view text = named;
  const TokenizeResult tokens = tokenize(text);
  const LineMap lines(text, tokens.tokens);
  const Source src{text, tokens.tokens, lines};

  std::vector<Finding> findings;
  for (const TokenizeIssue& issue : tokens.issues)
    findings.push_back({issue.offset, issue.message});
  std::vector<Edit> edits;
  RewriteResult result;
  for (PassResult pass :
       {rewrite_launches(src), rewrite_launch_kernel_casts(src), rewrite_shared(src)}) {
    edits.insert(edits.end(), pass.edits.begin(), pass.edits.end());
    findings.insert(findings.end(), pass.findings.begin(), pass.findings.end());
    for (const Finding& e : pass.errors) result.errors.push_back({lines.at(e.offset), e.message});
  }

  if (counted) {
    PassResult pass = find_uncounted_accesses(src);
    edits.insert(edits.end(), pass.edits.begin(), pass.edits.end());
    for (const Finding& e : pass.errors) result.refused.push_back({lines.at(e.offset), e.message});
    for (const Finding& e : find_made_directives(src).errors)
      result.refused.push_back({lines.at(e.offset), e.message});
  }

  result.text = apply_edits(text, std::move(edits), &findings);
  for (const Finding& f : findings) result.warnings.push_back({lines.at(f.offset), f.message});
  return result;
}

std::string format_error(const Warning& w) {
  return (w.where.file.empty() ? "<input>" : w.where.file) + ":" + std::to_string(w.where.line) +
         ": error: " + w.message;
}

std::string format_warning(const Warning& w) {
  return (w.where.file.empty() ? "<input>" : w.where.file) + ":" + std::to_string(w.where.line) +
         ": warning: emu-rewrite: " + w.message;
}

}  // namespace emu::rewrite

namespace emu::rewrite {

bool output_needs_preprocessor(std::string_view text) {
  // g++ -E writes no #define of its own (without -dD), so any is the rewriter's.
  for (std::size_t pos = 0; pos < text.size();) {
    if (text.compare(pos, 8, "#define ") == 0) return true;
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return false;
}

}  // namespace emu::rewrite
