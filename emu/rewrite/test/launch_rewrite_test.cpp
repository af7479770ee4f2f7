#include <gtest/gtest.h>

#include <ostream>

#include "rewrite_test_util.h"

namespace emu::rewrite {
namespace {

using testing::rewritten;
using testing::warnings_of;

struct LaunchCase {
  const char* name;
  const char* input;
  const char* expected;
};

// Names the case in test listings (and so in CTest) instead of dumping its bytes.
void PrintTo(const LaunchCase& c, std::ostream* os) { *os << c.name; }

class LaunchRewrite : public ::testing::TestWithParam<LaunchCase> {};

TEST_P(LaunchRewrite, ProducesExpectedText) {
  EXPECT_EQ(rewritten(GetParam().input), GetParam().expected);
  EXPECT_EQ(warnings_of(GetParam().input), "");
}

INSTANTIATE_TEST_SUITE_P(
    Forms, LaunchRewrite,
    ::testing::Values(
        LaunchCase{"TwoConfigArguments", "k<<<grid, block>>>(a, b);",
                   "::emu::launch(k, grid, block, 0, 0, a, b);"},
        LaunchCase{"SharedBytes", "k<<<g, b, n * sizeof(float)>>>(a);",
                   "::emu::launch(k, g, b, n * sizeof(float), 0, a);"},
        LaunchCase{"Stream", "k<<<g, b, 0, s>>>(a);", "::emu::launch(k, g, b, 0, s, a);"},
        LaunchCase{"NoKernelArguments", "k<<<1, 1>>>();", "::emu::launch(k, 1, 1, 0, 0);"},
        LaunchCase{"StreamAndNoArguments", "k<<<1, 1, 8, s>>>( );",
                   "::emu::launch(k, 1, 1, 8, s );"},
        LaunchCase{"Spacing", "k <<< g,b >>> (a);", "::emu::launch(k ,  g,b , 0, 0, a);"},
        LaunchCase{"Qualified", "ns::inner::k<<<g, b>>>(a);",
                   "::emu::launch(ns::inner::k, g, b, 0, 0, a);"},
        LaunchCase{"GlobalScope", "x; ::k<<<g, b>>>(a);", "x; ::emu::launch(::k, g, b, 0, 0, a);"},
        LaunchCase{"TemplateArgument", "k<16><<<g, b>>>(a);",
                   "::emu::launch(k<16>, g, b, 0, 0, a);"},
        LaunchCase{"TemplateArguments", "ns::k<T, 32><<<g, b>>>(a);",
                   "::emu::launch(ns::k<T, 32>, g, b, 0, 0, a);"},
        LaunchCase{"TemplateArgumentWithGreater", "k<(N>2)><<<g, b>>>(a);",
                   "::emu::launch(k<(N>2)>, g, b, 0, 0, a);"},
        LaunchCase{"NestedTemplateArguments", "k<A<int>, B<C<2>>><<<g, b>>>();",
                   "::emu::launch(k<A<int>, B<C<2>>>, g, b, 0, 0);"},
        LaunchCase{"TemplateKeyword", "ns::template k<3><<<g, b>>>(a);",
                   "::emu::launch(ns::template k<3>, g, b, 0, 0, a);"},
        LaunchCase{"ClassTemplateMember", "S<int>::k<<<g, b>>>(a);",
                   "::emu::launch(S<int>::k, g, b, 0, 0, a);"},
        LaunchCase{"Parenthesised", "(flag ? k1 : k2)<<<g, b>>>(a);",
                   "::emu::launch((flag ? k1 : k2), g, b, 0, 0, a);"},
        LaunchCase{"AfterIf", "if (c) (k)<<<g, b>>>(a);",
                   "if (c) ::emu::launch((k), g, b, 0, 0, a);"},
        LaunchCase{"AfterReturn", "return k<<<g, b>>>(a);",
                   "return ::emu::launch(k, g, b, 0, 0, a);"},
        LaunchCase{"CallResult", "pick(i)<<<g, b>>>(a);", "::emu::launch(pick(i), g, b, 0, 0, a);"},
        LaunchCase{"Member", "table.kernels[i]<<<g, b>>>(a);",
                   "::emu::launch(table.kernels[i], g, b, 0, 0, a);"},
        LaunchCase{"Dim3Config", "k<<<dim3(n / 16, m / 16), dim3(16, 16)>>>(a);",
                   "::emu::launch(k, dim3(n / 16, m / 16), dim3(16, 16), 0, 0, a);"},
        LaunchCase{"BracedConfig", "k<<<{2, 2}, {16, 16, 1}>>>(a);",
                   "::emu::launch(k, {2, 2}, {16, 16, 1}, 0, 0, a);"},
        LaunchCase{"NestedParensInArguments", "k<<<g, b>>>(f(g(x), (y)), z[i]);",
                   "::emu::launch(k, g, b, 0, 0, f(g(x), (y)), z[i]);"},
        LaunchCase{"TemplatesInArguments", "k<<<g, b>>>(std::min<int>(a, b), v.data());",
                   "::emu::launch(k, g, b, 0, 0, std::min<int>(a, b), v.data());"},
        LaunchCase{"LambdaArgument", "k<<<g, b>>>([=](int x) { return x >> 1; }, a);",
                   "::emu::launch(k, g, b, 0, 0, [=](int x) { return x >> 1; }, a);"},
        LaunchCase{"StringsAndChars", R"c(k<<<g, b>>>("x>>>(y, z)", ',', '>', ')');)c",
                   R"c(::emu::launch(k, g, b, 0, 0, "x>>>(y, z)", ',', '>', ')');)c"},
        LaunchCase{"RawString", "k<<<g, b>>>(R\"(>>>)\");",
                   "::emu::launch(k, g, b, 0, 0, R\"(>>>)\");"},
        LaunchCase{"TwoOnOneLine", "a<<<1, 2>>>(x); b<<<3, 4>>>(y);",
                   "::emu::launch(a, 1, 2, 0, 0, x); ::emu::launch(b, 3, 4, 0, 0, y);"},
        LaunchCase{"LaunchInArguments", "a<<<1, 2>>>(b<<<3, 4>>>(y));",
                   "::emu::launch(a, 1, 2, 0, 0, ::emu::launch(b, 3, 4, 0, 0, y));"},
        LaunchCase{"LinesKept", "k<<<g,\n b>>>\n(a,\n c);",
                   "::emu::launch(k, g,\n b, 0, 0, \na,\n c);"},
        LaunchCase{"Comment", "// k<<<1, 1>>>(a);\n/* k<<<1, 1>>>(a); */",
                   "// k<<<1, 1>>>(a);\n/* k<<<1, 1>>>(a); */"},
        LaunchCase{"InString", "puts(\"k<<<1, 1>>>(a)\");", "puts(\"k<<<1, 1>>>(a)\");"},
        LaunchCase{"FriendOperatorTemplate",
                   "friend ostream& operator<<<T>(ostream&, const X<T>&);",
                   "friend ostream& operator<<<T>(ostream&, const X<T>&);"},
        LaunchCase{"TripleClosingTemplate", "std::vector<std::vector<std::vector<int>>> v;",
                   "std::vector<std::vector<std::vector<int>>> v;"},
        // The spacings nvcc accepts besides `<<<`/`>>>` (tried on nvcc 13): `<<` then `<` with
        // blanks between, `>>` then `>` with any white space between. Some editors' auto-format
        // writes `k << < g, b >> > (a)`.
        LaunchCase{"AutoFormatSpacing", "k << < grid, block >> > (a, b);",
                   "::emu::launch(k ,  grid, block , 0, 0, a, b);"},
        LaunchCase{"TabBetweenOpeningChevrons", "k<<\t<g, b>>>(a);",
                   "::emu::launch(k, g, b, 0, 0, a);"},
        LaunchCase{"SpacesBetweenOpeningChevrons", "k<<   <g, b>>>(a);",
                   "::emu::launch(k, g, b, 0, 0, a);"},
        LaunchCase{"SpaceBetweenClosingChevrons", "k<<<g, b>> >(a);",
                   "::emu::launch(k, g, b, 0, 0, a);"},
        LaunchCase{"LineBreakBetweenClosingChevrons", "k<< <g, b>>\n>(a);\nx;",
                   "::emu::launch(k, g, b, 0, 0, \na);\nx;"},
        LaunchCase{"AutoFormatSpacingWithSharedBytes", "k << < g, b, n >> > ();",
                   "::emu::launch(k ,  g, b, n , 0);"},
        // What nvcc refuses is left for the compiler to refuse too.
        LaunchCase{"LineBreakBetweenOpeningChevronsIsNoLaunch", "k <<\n< g, b >>> (a);",
                   "k <<\n< g, b >>> (a);"},
        LaunchCase{"SplitFirstOpeningChevronIsNoLaunch", "k < << g, b >>> (a);",
                   "k < << g, b >>> (a);"},
        LaunchCase{"ShiftsAreNotLaunches", "x = a << b >> c; y <<= 2;",
                   "x = a << b >> c; y <<= 2;"}),
    [](const ::testing::TestParamInfo<LaunchCase>& info) { return std::string(info.param.name); });

TEST(LaunchRewriteWarnings, OneConfigArgumentIsLeftAndReported) {
  const char* src = "# 3 \"lab.cu\"\n\nk<<<1>>>(a);";
  EXPECT_EQ(rewritten(src), src);
  EXPECT_EQ(warnings_of(src),
            "lab.cu:4: warning: emu-rewrite: expected '<<<grid, block[, shared_bytes[, stream]]>>>"
            "(arguments)'; left unchanged\n");
}

TEST(LaunchRewriteWarnings, MissingKernelNameIsLeftAndReported) {
  const char* src = "x = 1 + <<<g, b>>>(a);";
  EXPECT_EQ(rewritten(src), src);
  EXPECT_EQ(warnings_of(src),
            "<input>:1: warning: emu-rewrite: cannot tell which kernel this '<<<' launches; left "
            "unchanged\n");
}

TEST(LaunchRewriteWarnings, UnbalancedArgumentsAreLeftAndReported) {
  const char* src = "k<<<g, b>>>(a;\n";
  EXPECT_EQ(rewritten(src), src);
  EXPECT_NE(warnings_of(src).find("unbalanced parentheses after '>>>'"), std::string::npos);
}

TEST(LaunchRewriteWarnings, MissingClosingChevronsAreLeftAndReported) {
  const char* src = "k<<<g, b>>(a);";
  EXPECT_EQ(rewritten(src), src);
  EXPECT_NE(warnings_of(src), "");
}

}  // namespace
}  // namespace emu::rewrite
