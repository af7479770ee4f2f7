#include "header_policy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace labkit {
namespace {

TEST(HeaderPolicy, TheOccupancyCalculatorIsRefusedByFileName) {
  const std::string rule =
      "occupancy.o: /sub/occupancy.cu /usr/include/stdio.h \\\n"
      " /usr/local/cuda/include/cuda_runtime.h /usr/local/include/cuda_occupancy.h\n";
  const std::vector<HeaderRefusal> refused = RefusedHeaders(rule);
  ASSERT_EQ(refused.size(), 1u);
  EXPECT_EQ(refused[0].header, "/usr/local/include/cuda_occupancy.h");
}

// nvcc writes the target and the colon apart, one dependency a line.
TEST(HeaderPolicy, NvccsLayoutIsReadToo) {
  const std::string rule =
      "/w/occupancy.cu.o : /sub/occupancy.cu \\\n"
      "    /usr/local/cuda/bin/../targets/x86_64-linux/include/cuda_occupancy.h \\\n"
      "    /usr/include/stdc-predef.h\n";
  ASSERT_EQ(RefusedHeaders(rule).size(), 1u);
}

TEST(HeaderPolicy, OtherHeadersAndLookAlikesPass) {
  EXPECT_TRUE(
      RefusedHeaders("a.o: a.cu /usr/include/cuda_occupancy.hpp my_cuda_occupancy.h\n").empty());
  EXPECT_TRUE(RefusedHeaders("").empty());
}

TEST(HeaderPolicy, TheMessageNamesTheFileTheHeaderAndTheLine) {
  const std::vector<HeaderRefusal> refused = {{"/usr/local/include/cuda_occupancy.h", "why"}};
  EXPECT_EQ(HeaderRefusalMessage("occupancy.cu", "#include <cstdio>\n#include <cuda_occupancy.h>\n",
                                 refused),
            "occupancy.cu includes cuda_occupancy.h (line 2), which no submission may include: "
            "why.");
  EXPECT_EQ(HeaderRefusalMessage("occupancy.cu", "#include \"mine.h\"\n", refused),
            "occupancy.cu includes cuda_occupancy.h (through another header), which no "
            "submission may include: why.");
}

// The build's view: the compiler's list read from its file, a refusal in words, none, or the list
// missing (which a real compiler never leaves, so it is not read as "nothing included").
TEST(HeaderPolicy, TheCompilersListIsReadFromItsFile) {
  const std::string list = std::filesystem::temp_directory_path() /
                           ("labkit_header_policy_" + std::to_string(getpid()) + ".d");
  std::ofstream(list) << "o.o: occupancy.cu /usr/local/include/cuda_occupancy.h\n";
  const Result<std::string> refused =
      IncludedHeadersRefusal(list, "occupancy.cu", "#include <cuda_occupancy.h>\n");
  ASSERT_TRUE(refused.ok()) << refused.error();
  EXPECT_NE(refused->find("occupancy.cu includes cuda_occupancy.h (line 1)"), std::string::npos);
  std::ofstream(list) << "o.o: occupancy.cu /usr/include/stdio.h\n";
  EXPECT_EQ(*IncludedHeadersRefusal(list, "occupancy.cu", ""), "");
  std::remove(list.c_str());
  const Result<std::string> missing = IncludedHeadersRefusal(list, "occupancy.cu", "");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("the list of headers occupancy.cu included"), std::string::npos);
}

}  // namespace
}  // namespace labkit
