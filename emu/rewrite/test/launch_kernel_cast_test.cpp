// cudaLaunchKernel's first argument: a cast of a kernel's name is dropped, so that the CPU
// backend's typed cudaLaunchKernel launches it; anything else is left for the compile to judge.
#include <gtest/gtest.h>

#include <ostream>

#include "rewrite_test_util.h"

namespace emu::rewrite {
namespace {

using testing::rewritten;
using testing::warnings_of;

struct CastCase {
  const char* name;
  const char* input;
  const char* expected;
};

void PrintTo(const CastCase& c, std::ostream* os) { *os << c.name; }

class LaunchKernelCast : public ::testing::TestWithParam<CastCase> {};

TEST_P(LaunchKernelCast, ProducesExpectedText) {
  EXPECT_EQ(rewritten(GetParam().input), GetParam().expected);
  EXPECT_EQ(warnings_of(GetParam().input), "");
  // Rewriting the output again changes nothing.
  EXPECT_EQ(rewritten(GetParam().expected), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Forms, LaunchKernelCast,
    ::testing::Values(
        CastCase{"ConstVoidPointer", "cudaLaunchKernel((const void*)k, g, b, args, 0, 0);",
                 "cudaLaunchKernel(k, g, b, args, 0, 0);"},
        CastCase{"VoidPointer", "cudaLaunchKernel((void *) k, g, b, args);",
                 "cudaLaunchKernel(k, g, b, args);"},
        CastCase{"VoidConstPointer", "cudaLaunchKernel((void const*)&k, g, b, args);",
                 "cudaLaunchKernel(k, g, b, args);"},
        CastCase{"AddressOf", "cudaLaunchKernel((const void*)&k, g, b, args);",
                 "cudaLaunchKernel(k, g, b, args);"},
        CastCase{"Parenthesised", "cudaLaunchKernel((const void*)(&k), g, b, args);",
                 "cudaLaunchKernel(k, g, b, args);"},
        CastCase{"Qualified", "::cudaLaunchKernel((const void*)::ns::k, g, b, args);",
                 "::cudaLaunchKernel(::ns::k, g, b, args);"},
        CastCase{"TemplateArguments",
                 "cudaLaunchKernel((const void*)tiled<16, float>, g, b, args);",
                 "cudaLaunchKernel(tiled<16, float>, g, b, args);"},
        CastCase{"ReinterpretCast",
                 "cudaLaunchKernel(reinterpret_cast<const void*>(&k), g, b, args);",
                 "cudaLaunchKernel(k, g, b, args);"},
        CastCase{"LinesKept", "cudaLaunchKernel((const void*)\nk,\n g, b, args);",
                 "cudaLaunchKernel(k\n,\n g, b, args);"},
        // Left alone: no cast, a pointer in a variable, a cast of something that is no name, the
        // declarations themselves.
        CastCase{"TypedForm", "cudaLaunchKernel(k, g, b, args);",
                 "cudaLaunchKernel(k, g, b, args);"},
        CastCase{"PointerVariable", "cudaLaunchKernel(table[i], g, b, args);",
                 "cudaLaunchKernel(table[i], g, b, args);"},
        CastCase{"CastOfACall", "cudaLaunchKernel((const void*)pick(i), g, b, args);",
                 "cudaLaunchKernel((const void*)pick(i), g, b, args);"},
        CastCase{"CastOfASum", "cudaLaunchKernel((const void*)k + 1, g, b, args);",
                 "cudaLaunchKernel((const void*)k + 1, g, b, args);"},
        CastCase{"Declaration",
                 "cudaError_t cudaLaunchKernel(const void* kernel, dim3 g, dim3 b, void** a);",
                 "cudaError_t cudaLaunchKernel(const void* kernel, dim3 g, dim3 b, void** a);"}));

}  // namespace
}  // namespace emu::rewrite
