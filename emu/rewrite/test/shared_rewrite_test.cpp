#include <gtest/gtest.h>

#include <ostream>

#include "rewrite_test_util.h"

namespace emu::rewrite {
namespace {

using testing::errors_of;
using testing::rewritten;
using testing::warnings_of;

struct SharedCase {
  const char* name;
  const char* input;  // wrapped in a function body by the test
  const char* expected;
};

// Names the case in test listings (and so in CTest) instead of dumping its bytes.
void PrintTo(const SharedCase& c, std::ostream* os) { *os << c.name; }

class SharedRewrite : public ::testing::TestWithParam<SharedCase> {};

TEST_P(SharedRewrite, ProducesExpectedTextAtBlockScope) {
  const std::string in = std::string("void k() { ") + GetParam().input + " }";
  EXPECT_EQ(rewritten(in), std::string("void k() { ") + GetParam().expected + " }");
  EXPECT_EQ(warnings_of(in), "");
}

INSTANTIATE_TEST_SUITE_P(
    Forms, SharedRewrite,
    ::testing::Values(
        SharedCase{"Array2D", "__shared__ float As[T][T];",
                   "auto& As = ::emu::block_shared<float[T][T], 0>();"},
        SharedCase{"TwoDeclarators", "__shared__ float As[T][T], Bs[T][T];",
                   "auto& As = ::emu::block_shared<float[T][T], 0>(); "
                   "auto& Bs = ::emu::block_shared<float[T][T], 1>();"},
        SharedCase{"Scalar", "__shared__ int count;",
                   "auto& count = ::emu::block_shared<int, 0>();"},
        SharedCase{"Static", "static __shared__ int count;",
                   "auto& count = ::emu::block_shared<int, 0>();"},
        SharedCase{"VolatileAfter", "__shared__ volatile int flag;",
                   "auto& flag = ::emu::block_shared<volatile int, 0>();"},
        SharedCase{"VolatileBefore", "volatile __shared__ int flag[2];",
                   "auto& flag = ::emu::block_shared<volatile int[2], 0>();"},
        SharedCase{"SharedAfterType", "float __shared__ x[4];",
                   "auto& x = ::emu::block_shared<float[4], 0>();"},
        SharedCase{"Align", "__shared__ __align__(16) float buf[64];",
                   "auto& buf = ::emu::block_shared<float[64], 0>();"},
        SharedCase{"Alignas", "alignas(16) __shared__ float buf[64];",
                   "auto& buf = ::emu::block_shared<float[64], 0>();"},
        SharedCase{"Attribute", "__shared__ float buf[8] __attribute__((aligned(16)));",
                   "auto& buf = ::emu::block_shared<float[8], 0>();"},
        SharedCase{"TemplateType", "__shared__ Foo<int, 3> x;",
                   "auto& x = ::emu::block_shared<Foo<int, 3>, 0>();"},
        SharedCase{"TemplateTypeTwoDeclarators", "__shared__ Foo<int, 3> x, y[2];",
                   "auto& x = ::emu::block_shared<Foo<int, 3>, 0>(); "
                   "auto& y = ::emu::block_shared<Foo<int, 3>[2], 1>();"},
        SharedCase{"DependentType", "__shared__ typename S<T>::type t[N * 2];",
                   "auto& t = ::emu::block_shared<typename S<T>::type[N * 2], 0>();"},
        SharedCase{"Pointers", "__shared__ float *p, q[2];",
                   "auto& p = ::emu::block_shared<float *, 0>(); "
                   "auto& q = ::emu::block_shared<float[2], 1>();"},
        SharedCase{"ConditionalBound", "__shared__ int a[N < M ? N : M];",
                   "auto& a = ::emu::block_shared<int[N < M ? N : M], 0>();"},
        SharedCase{"LiteralInBound", "__shared__ char s[sizeof(\"a;b\")];",
                   "auto& s = ::emu::block_shared<char[sizeof(\"a;b\")], 0>();"},
        SharedCase{"Extern", "extern __shared__ float smem[];",
                   "float* smem = ::emu::dynamic_shared<float>();"},
        SharedCase{"ExternAligned", "extern __shared__ __align__(16) unsigned char smem[];",
                   "unsigned char* smem = ::emu::dynamic_shared<unsigned char>();"},
        SharedCase{"ExternTwo", "extern __shared__ int a[], b[];",
                   "int* a = ::emu::dynamic_shared<int>(); int* b = ::emu::dynamic_shared<int>();"},
        SharedCase{"LinesKept", "__shared__ float a[4],\n  b[4];",
                   "auto& a = ::emu::block_shared<float[4], 0>(); "
                   "auto& b = ::emu::block_shared<float[4], 1>();\n"},
        SharedCase{"InComment", "// __shared__ int x;\n/* __shared__ int y; */",
                   "// __shared__ int x;\n/* __shared__ int y; */"},
        SharedCase{"InString", "puts(\"__shared__ int x;\");", "puts(\"__shared__ int x;\");"},
        // A type defined in the declaration is moved in front (shared_type_names.h), named where it
        // was not; its lines stay where they were.
        SharedCase{"UnnamedUnion", "__shared__ union { float a[4];\n int b[4]; } u, v;",
                   "union __emu_shared_type_0 { float a[4];\n int b[4]; }; "
                   "auto& u = ::emu::block_shared<union __emu_shared_type_0, 0>(); "
                   "auto& v = ::emu::block_shared<union __emu_shared_type_0, 1>();"},
        SharedCase{"NamedStructStatic", "static __shared__ struct Tile { float x; } t;",
                   "struct Tile { float x; }; auto& t = ::emu::block_shared<struct Tile, 0>();"},
        SharedCase{"UnnamedVolatileStruct", "__shared__ volatile struct { int n; } c;",
                   "struct __emu_shared_type_0 { int n; }; "
                   "auto& c = ::emu::block_shared<volatile struct __emu_shared_type_0, 0>();"}),
    [](const ::testing::TestParamInfo<SharedCase>& info) { return std::string(info.param.name); });

TEST(SharedRewriteIds, AreUniqueAcrossFunctions) {
  EXPECT_EQ(rewritten("void a() { __shared__ int x; }\nvoid b() { __shared__ int x; }"),
            "void a() { auto& x = ::emu::block_shared<int, 0>(); }\n"
            "void b() { auto& x = ::emu::block_shared<int, 1>(); }");
}

TEST(SharedRewriteNamespaceScope, BecomesAMacroOnItsOwnLineAndRenumbers) {
  const char* src =
      "# 1 \"lab.cu\"\n"
      "__shared__ float tile[16][16];\n"
      "void k() { tile[0][0] = 1; }\n";
  EXPECT_EQ(rewritten(src),
            "# 1 \"lab.cu\"\n"
            "\n"
            "#define tile (::emu::block_shared<float[16][16], 0>())\n"
            "# 2 \"lab.cu\"\n"
            "void k() { tile[0][0] = 1; }\n");
  EXPECT_EQ(warnings_of(src), "");
}

TEST(SharedRewriteNamespaceScope, InsideNamespacesToo) {
  EXPECT_EQ(rewritten("namespace a { extern \"C\" { __shared__ int x, y; } }\nint z;"),
            "namespace a { extern \"C\" {  } }\n"
            "#define x (::emu::block_shared<int, 0>())\n"
            "#define y (::emu::block_shared<int, 1>())\n"
            "#line 2\n"
            "int z;");
}

TEST(SharedRewriteNamespaceScope, ExternAtEndOfInput) {
  EXPECT_EQ(rewritten("extern __shared__ float dyn[];"),
            "\n#define dyn (::emu::dynamic_shared<float>())\n");
}

// A name the file also gives something else (a host variable, a member) cannot be a macro, which
// would replace those too: an object of the name stands for the array instead, in place.
TEST(SharedRewriteNamespaceScope, ANameGivenToSomethingElseIsAnObject) {
  EXPECT_EQ(rewritten("extern __shared__ float shared[];\n"
                      "void k() { float* a = shared; }\n"
                      "void f() { const size_t shared = 64; g<<<1, 1, shared>>>(); }"),
            "constexpr ::emu::dynamic_shared_name<float> shared{};\n"
            "void k() { float* a = shared; }\n"
            "void f() { const size_t shared = 64; ::emu::launch(g, 1, 1, shared, 0); }");
  EXPECT_EQ(rewritten("__shared__ float tile[4][4];\nstruct S { int tile; };"),
            "constexpr ::emu::block_shared_name<float[4][4], 0> tile{};\nstruct S { int tile; };");
  EXPECT_EQ(rewritten("__shared__ int t[2];\nint n(S* s) { return s->t + t[0]; }"),
            "constexpr ::emu::block_shared_name<int[2], 0> t{};\n"
            "int n(S* s) { return s->t + t[0]; }");
  EXPECT_EQ(rewritten("__shared__ int t[2];\nvoid n(std::vector<int>& t);"),
            "constexpr ::emu::block_shared_name<int[2], 0> t{};\nvoid n(std::vector<int>& t);");
}

// Uses of the name alone, as operands, leave it a macro (which keeps every cast as CUDA has it);
// so does a scalar, which an object could not stand for in every expression.
TEST(SharedRewriteNamespaceScope, UsesAloneKeepTheMacro) {
  EXPECT_EQ(rewritten("extern __shared__ char raw[];\n"
                      "void k() { float* f = reinterpret_cast<float*>(raw); if (x) return raw[0] * "
                      "raw[1]; }"),
            "\n#define raw (::emu::dynamic_shared<char>())\n#line 2\n"
            "void k() { float* f = reinterpret_cast<float*>(raw); if (x) return raw[0] * "
            "raw[1]; }");
  EXPECT_EQ(
      rewritten("__shared__ int count;\nvoid f() { int count = 0; }"),
      "\n#define count (::emu::block_shared<int, 0>())\n#line 2\nvoid f() { int count = 0; }");
}

TEST(SharedRewriteNamespaceScope, NotInsideClassesOrFunctions) {
  EXPECT_EQ(rewritten("namespace n { void f() { if (x) { __shared__ int s; } } }"),
            "namespace n { void f() { if (x) { auto& s = ::emu::block_shared<int, 0>(); } } }");
}

// nvcc: "a variable length array cannot have static storage duration". Before, g++ spoke of the
// emulator's block_shared<...> template instead.
TEST(SharedRewriteErrors, RuntimeSizeFromBlockDimIsNvccsError) {
  const char* src =
      "# 1 \"matmul.cu\"\n__global__ void k(float* p) {\n"
      "  __shared__ float s[blockDim.y][blockDim.x];\n}\n";
  EXPECT_EQ(errors_of(src),
            "matmul.cu:2: error: a variable length array cannot have static storage duration\n");
}

TEST(SharedRewriteErrors, RuntimeSizeFromAParameterIsNvccsError) {
  const char* src =
      "void f(const float* a, int tile_width) {\n  if (a) {\n"
      "    __shared__ float s[tile_width * tile_width];\n  }\n}\n";
  EXPECT_EQ(errors_of(src),
            "<input>:3: error: a variable length array cannot have static storage duration\n");
}

TEST(SharedRewriteErrors, ConstantSizesAreNoError) {
  const char* src =
      "namespace lab { constexpr int W = 16; }\n"
      "template <int T> __global__ void k(float* p, int n) {\n"
      "  __shared__ float a[T][T + 1]; __shared__ float b[lab::W][sizeof(n)];\n"
      "  __shared__ float c[16 * 2];\n}\n";
  EXPECT_EQ(errors_of(src), "");
  EXPECT_EQ(warnings_of(src), "");
}

TEST(SharedRewriteWarnings, InitializerIsLeftAndReported) {
  const char* src = "# 5 \"lab.cu\"\nvoid k() { __shared__ int x = 0; }";
  EXPECT_EQ(rewritten(src), src);
  EXPECT_EQ(warnings_of(src),
            "lab.cu:5: warning: emu-rewrite: a __shared__ variable cannot have an initializer; "
            "left unchanged\n");
}

TEST(SharedRewriteWarnings, ExternWithSizeIsLeftAndReported) {
  const char* src = "void k() { extern __shared__ int x[4]; }";
  EXPECT_EQ(rewritten(src), src);
  EXPECT_NE(warnings_of(src).find("expected 'extern __shared__ T name[]'"), std::string::npos);
}

TEST(SharedRewriteWarnings, NotADeclarationIsLeftAndReported) {
  for (const char* src :
       {"void f(__shared__ int* p) { }", "void k() { __shared__ int; }", "__shared__",
        "void k() { __shared__ float (*p)[4]; }",
        "void k() { __align__(\n static __shared__ int x; }", "void k() { __shared__ int \"x; }"}) {
    EXPECT_EQ(rewritten(src), src) << src;
    EXPECT_NE(warnings_of(src), "") << src;
  }
}

}  // namespace
}  // namespace emu::rewrite
