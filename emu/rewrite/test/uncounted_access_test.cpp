#include <gtest/gtest.h>

#include <string>

#include "refused_test_util.h"
#include "rewrite.h"

namespace emu::rewrite {
namespace {

TEST(UncountedAccess, AttributesThatSwitchOffTheCountAreRefusedInEverySpelling) {
  for (const char* attribute :
       {"__attribute__((no_sanitize_address))", "__attribute__((__no_sanitize_address__))",
        "__attribute__((no_sanitize(\"kernel-address\")))", "[[gnu::no_sanitize_address]]",
        "[[using gnu: no_sanitize_address]]",
        "__attribute__((no_address_safety_analysis))"}) {
    const std::string src = std::string("# 1 \"m.cu\"\n\n") + attribute +
                            " float unseen(const float* p) { return *p; }\n";
    const std::string out = refused(src);
    EXPECT_EQ(out.rfind("m.cu:2: error: `", 0), 0u) << attribute << "\n" << out;
    EXPECT_NE(out.find("switches off the count"), std::string::npos) << out;
  }
}

TEST(UncountedAccess, AssemblyStatementsAreRefusedAndLabelsAllowed) {
  EXPECT_NE(refused("# 1 \"m.cu\"\nfloat f(const float* p) { float r; asm(\"movss (%1), %0\" : "
                    "\"=x\"(r) : \"r\"(p)); return r; }\n")
                .find("m.cu:1: error: inline assembly"),
            std::string::npos);
  EXPECT_NE(refused("void g() { __asm__ volatile(\"nop\"); }\n").find("inline assembly"),
            std::string::npos);
  EXPECT_NE(refused("void g(int c) { if (c) __asm__(\"nop\"); }\n").find("inline assembly"),
            std::string::npos);
  EXPECT_NE(refused("__asm__(\".globl h\\nh: ret\");\n").find("inline assembly"),
            std::string::npos);
  // The C library's headers rename functions with asm labels; register variables name registers.
  EXPECT_EQ(refused("extern int sscanf(const char*, const char*, ...) noexcept(true) __asm__ (\"\" "
                    "\"__isoc99_sscanf\");\n"
                    "extern char* strchr(char* s, int c) noexcept (true) __asm (\"strchr\") "
                    "__attribute__((__pure__));\n"
                    "int counter asm(\"my_counter\");\n"),
            "");
}

TEST(UncountedAccess, X86BuiltinsAndBuiltinApplyAreRefused) {
  EXPECT_NE(refused("typedef float v4 __attribute__((vector_size(16)));\n"
                    "v4 f(v4 a, const void* p) { return __builtin_ia32_loadhps(a, p); }\n")
                .find("x86 intrinsics"),
            std::string::npos);
  EXPECT_NE(refused("void f(void (*g)(), void* a) { __builtin_apply(g, a, 64); }\n")
                .find("__builtin_apply"),
            std::string::npos);
}

TEST(UncountedAccess, CopyBuiltinsAreSentToTheCountingCopies) {
  const RewriteResult r = rewrite_source(
      "void f(float* a, const float* p, int n) { __builtin_memcpy(a, p, 4 * (n > 0)); "
      "__builtin_memmove(a, p, n); __builtin_memset(a, 0, n); }\n",
      /*counted=*/true);
  EXPECT_TRUE(r.refused.empty());
  EXPECT_NE(r.text.find("__emu_device_memcpy(a, p, 4 * (n > 0))"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("__emu_device_memmove(a, p, n)"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("__emu_device_memset(a, 0, n)"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("__builtin_mem"), std::string::npos) << r.text;
  EXPECT_NE(rewrite_source("void f(void* a) { __builtin_memset(a, 0, 4); }\n")
                .text.find("__builtin_memset"),
            std::string::npos)
      << "only a counted compile rewrites";
}

// AddressSanitizer reports an atomic read-modify-write as a store: its address goes through the
// emulator's count of the read (a lambda called on the spot, which the student's code cannot
// overload), whatever the argument holds; a compare and exchange's expected value too. Loads,
// stores and fences stay as they are.
TEST(UncountedAccess, AtomicReadModifyWritesCountTheirRead) {
  const std::string counted = "[](auto* __emu_p) { ::__emu_device_atomic_read(";
  const RewriteResult r = rewrite_source(
      "unsigned f(unsigned* p, int i, unsigned* e) {\n"
      "  unsigned v = __atomic_fetch_add(&p[g(i, 1)], 0u, __ATOMIC_RELAXED);\n"
      "  v += __sync_val_compare_and_swap(reinterpret_cast<pair<int, int>*>(p), 1, 2);\n"
      "  v += __atomic_compare_exchange_n(p, e, 3u, false, 0, 0);\n"
      "  __atomic_store_n(p, v, __ATOMIC_RELAXED);\n"
      "  return v + __atomic_load_n(p, __ATOMIC_RELAXED);\n"
      "}\n",
      /*counted=*/true);
  EXPECT_TRUE(r.refused.empty());
  EXPECT_NE(r.text.find("__atomic_fetch_add(" + counted), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("return __emu_p; }(&p[g(i, 1)]), 0u"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("return __emu_p; }(reinterpret_cast<pair<int, int>*>(p)), 1, 2)"),
            std::string::npos)
      << r.text;
  EXPECT_NE(r.text.find("return __emu_p; }(p)," + counted), std::string::npos)
      << "both a compare and exchange's pointers: " << r.text;
  EXPECT_NE(r.text.find("__atomic_store_n(p, v"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("__atomic_load_n(p, "), std::string::npos) << r.text;
  // The C++ library's own functions of similar names are not builtins (<ext/atomicity.h>).
  EXPECT_EQ(rewrite_source("void __atomic_add(volatile int* m, int v);\n"
                           "void g(int* p) { __atomic_add(p, 1); }\n",
                           /*counted=*/true)
                .text.find("__emu_device_atomic_read"),
            std::string::npos);
  EXPECT_EQ(rewrite_source("int f(int* p) { return __atomic_fetch_add(p, 1, 0); }\n")
                .text.find("__emu_device_atomic_read"),
            std::string::npos)
      << "only a counted compile rewrites";
}

// Calls the rewrite cannot read are refused, not left uncounted (red-team pass of 2026-11-27): the
// builtin's name in parentheses, and a `<` in an argument that is not a C++ cast's (a comparison
// with a variable named like a cast once sent the search for the cast's `>` to the end of the
// file).
TEST(UncountedAccess, AtomicCallsTheRewriteCannotReadAreRefused) {
  for (const char* call :
       {"(__atomic_fetch_add)(p, 0u, 0)", "__atomic_fetch_add(my_cast < 1 ? p : p, 0u, 0)",
        "__sync_fetch_and_add(q < p ? q : p, 0u)"}) {
    const std::string out = refused(
        "# 1 \"m.cu\"\nunsigned f(unsigned* p, unsigned* q, int my_cast) {\n"
        "  return " +
        std::string(call) + ";\n}\n");
    EXPECT_EQ(out.rfind("m.cu:2: error: `__", 0), 0u) << call << "\n" << out;
    EXPECT_NE(out.find("write the call plainly"), std::string::npos) << out;
  }
}

// A compare builtin becomes the C library's call, which a kernel may not make (the guard stops
// it); as a builtin, g++ could compare inline, reading device memory uncounted.
TEST(UncountedAccess, CompareBuiltinsBecomeLibraryCalls) {
  const RewriteResult r = rewrite_source(
      "int f(const float* a, const char* s, int n) { return __builtin_memcmp(a, a + 1, 4 * (n > 0))"
      " + __builtin_bcmp(a, a, n) + __builtin_strcmp(s, \"x\") + __builtin_strncmp(s, s, n); }\n",
      /*counted=*/true);
  EXPECT_TRUE(r.refused.empty());
  EXPECT_NE(r.text.find("::memcmp(a, a + 1, 4 * (n > 0))"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("::memcmp(a, a, n)"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("::strcmp(s, \"x\")"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("::strncmp(s, s, n)"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("__builtin_"), std::string::npos) << r.text;
}

// Only _FORTIFY_SOURCE's wrappers write these, and a counted compile has none: the student's own
// would copy inline, uncounted.
TEST(UncountedAccess, ObjectSizeCheckedCopyBuiltinsAreRefused) {
  for (const char* builtin : {"__builtin___memcpy_chk", "__builtin___memmove_chk",
                              "__builtin___mempcpy_chk", "__builtin___strncpy_chk"}) {
    const std::string source = "void f(float* a, const float* p, int n) { " + std::string(builtin) +
                               "(a, p, 4 * (n > 0), 4); }\n";
    EXPECT_NE(refused(source).find(std::string("`") + builtin + "`: g++ copies inline"),
              std::string::npos)
        << builtin;
  }
}

TEST(UncountedAccess, InlineStringOperationsAreRefused) {
  EXPECT_NE(refused("__attribute__((noinline, optimize(\"Os\"))) void f() {}\n")
                .find("the `optimize` attribute asks g++"),
            std::string::npos);
  EXPECT_NE(refused("[[gnu::target(\"inline-all-stringops\")]] void f() {}\n").find("`target`"),
            std::string::npos);
  EXPECT_NE(refused("#pragma GCC optimize (\"O3\")\nvoid f() {}\n").find("this pragma"),
            std::string::npos);
  EXPECT_NE(
      refused("#pragma GCC target (\"memcpy-strategy=rep_byte:-1:align\")\n").find("this pragma"),
      std::string::npos);
  // Other targets (an FMA kernel: labgrade grades its -ffp-contract=off build) and names that
  // only look like attributes are fine.
  EXPECT_EQ(refused("__attribute__((target(\"fma\"))) float f(float a) { return a; }\n"
                    "#pragma GCC target (\"avx2\")\n"
                    "int no_sanitize_count = 0; int optimize(int x) { return optimize(x - 1); }\n"),
            "");
}

TEST(UncountedAccess, SectionsOfTheStudentsChoosingAreRefused) {
  for (const char* attribute :
       {"__attribute__((section(\".lab_stash\")))", "__attribute__((__section__(\".data.x\")))",
        "[[gnu::section(\".bss.mine\")]]"}) {
    const std::string out =
        refused(std::string("# 1 \"m.cu\"\n") + attribute + " float stash[1024];\n");
    EXPECT_NE(out.find("puts data where the grader's CPU backend does not watch"),
              std::string::npos)
        << attribute << "\n"
        << out;
  }
  // __constant__'s own, as qualifiers.h spells it after preprocessing.
  EXPECT_EQ(refused("__attribute__((section(\".emu_constant.\" \"3\"))) float table[4];\n"), "");
}

TEST(UncountedAccess, OnlyCountedCompilesRefuseAndOrdinaryKernelsPass) {
  const char* asm_statement = "void g() { asm(\"nop\"); }\n";
  EXPECT_TRUE(rewrite_source(asm_statement).refused.empty());
  EXPECT_EQ(refused("__global__ void k(const float* a, float* c) {\n"
                    "  __shared__ float tile[16];\n"
                    "  tile[threadIdx.x] = __ldg(a + threadIdx.x);\n"
                    "  __syncthreads();\n"
                    "  c[threadIdx.x] = tile[15 - threadIdx.x];\n"
                    "}\n"),
            "");
  // Names in strings and comments are not code.
  EXPECT_EQ(refused("const char* s = \"asm no_sanitize_address __builtin_ia32_x\"; // asm\n"), "");
}

}  // namespace
}  // namespace emu::rewrite
