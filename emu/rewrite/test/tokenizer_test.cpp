#include "tokenizer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace emu::rewrite {
namespace {

std::vector<std::string> texts(std::string_view src) {
  std::vector<std::string> out;
  for (const Token& t : tokenize(src).tokens) out.emplace_back(t.text);
  return out;
}

using V = std::vector<std::string>;

TEST(Tokenizer, SplitsPunctuationIntoSingleCharactersExceptScopeAndArrow) {
  EXPECT_EQ(texts("a::b->c<<<x>>>"),
            (V{"a", "::", "b", "->", "c", "<", "<", "<", "x", ">", ">", ">"}));
}

TEST(Tokenizer, SkipsComments) {
  EXPECT_EQ(texts("a // k<<<1,1>>>()\nb /* __shared__ */ c"), (V{"a", "b", "c"}));
}

TEST(Tokenizer, KeepsStringsAndCharsWhole) {
  EXPECT_EQ(texts(R"(f("a>>>b, \"c\"", '>', '\'', L"w", u8"x"))"),
            (V{"f", "(", R"("a>>>b, \"c\"")", ",", "'>'", ",", R"('\'')", ",", "L\"w\"", ",",
               "u8\"x\"", ")"}));
}

TEST(Tokenizer, KeepsRawStringsWholeAcrossLines) {
  const auto r = tokenize("x = R\"d(a)\" <<< \n )d\"; y");
  ASSERT_EQ(r.tokens.size(), 5u);
  EXPECT_EQ(r.tokens[2].kind, TokenKind::kString);
  EXPECT_EQ(r.tokens[2].text, "R\"d(a)\" <<< \n )d\"");
  EXPECT_TRUE(r.issues.empty());
}

TEST(Tokenizer, ReadsNumbersWithSeparatorsAndExponents) {
  EXPECT_EQ(texts("1'000'000 + 1.5e-3f - 0x1fULL"),
            (V{"1'000'000", "+", "1.5e-3f", "-", "0x1fULL"}));
}

TEST(Tokenizer, ReadsANumberAtTheVeryStart) {
  EXPECT_EQ(texts(".5e+1"), (V{".5e+1"}));
  EXPECT_EQ(texts("1e"), (V{"1e"}));
}

TEST(Tokenizer, TreatsHashLinesAsOneDirectiveToken) {
  const auto r = tokenize("# 12 \"a.cu\" 2\nint x; # not a directive\n  #pragma unroll\n");
  ASSERT_EQ(r.tokens.size(), 9u);
  EXPECT_EQ(r.tokens[0].kind, TokenKind::kDirective);
  EXPECT_EQ(r.tokens[0].text, "# 12 \"a.cu\" 2");
  EXPECT_EQ(r.tokens[4].text, "#");  // mid-line: punctuation
  EXPECT_EQ(r.tokens[8].kind, TokenKind::kDirective);
  EXPECT_EQ(r.tokens[8].text, "#pragma unroll");
}

TEST(Tokenizer, ReportsUnterminatedLiteralsAndCarriesOn) {
  const auto r = tokenize("a \"open\nb 'c\nd /* e");
  ASSERT_EQ(r.issues.size(), 3u);
  EXPECT_EQ(r.issues[0].message, "unterminated string literal");
  EXPECT_EQ(r.issues[1].message, "unterminated character literal");
  EXPECT_EQ(r.issues[2].message, "unterminated comment");
  EXPECT_EQ(texts("a \"open\nb"), (V{"a", "\"open", "b"}));
}

TEST(Tokenizer, RecordsOffsetsSoAdjacencyCanBeTested) {
  const auto r = tokenize("a< <b");
  ASSERT_EQ(r.tokens.size(), 4u);
  EXPECT_TRUE(adjacent(r.tokens[0], r.tokens[1]));
  EXPECT_FALSE(adjacent(r.tokens[1], r.tokens[2]));
}

}  // namespace
}  // namespace emu::rewrite
