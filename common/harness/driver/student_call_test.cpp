// call_student (student_call.h): what the student's function throws becomes the case's failure,
// with its own words, of which only the first kMaxStudentTextBytes are passed on.
#include "student_call.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace labkit {
namespace {

std::string ThrownBy(void (*fn)()) {
  try {
    call_student(fn);
  } catch (const StudentException& e) {
    return e.what();
  }
  return "";
}

TEST(StudentCall, KeepsTheExceptionsOwnWords) {
  EXPECT_EQ(ThrownBy([] { throw std::out_of_range("vector::_M_range_check: 4 >= 4"); }),
            "your function threw an exception (vector::_M_range_check: 4 >= 4)");
  EXPECT_EQ(ThrownBy([] { throw 7; }),
            "your function threw an exception of a type not derived from std::exception");
}

// Hundreds of megabytes of words would be copied into every plan and response line.
TEST(StudentCall, CutsAHugeMessageShort) {
  const std::string said = ThrownBy([] { throw std::runtime_error(std::string(1 << 20, 'x')); });
  EXPECT_LT(said.size(), kMaxStudentTextBytes + 100);
  EXPECT_NE(said.find(std::string(kMaxStudentTextBytes, 'x') + "... (1048576 bytes in all))"),
            std::string::npos)
      << said.substr(said.size() - 60);
}

TEST(StudentCall, PassesAMessageOfTheLimitWhole) {
  EXPECT_EQ(StudentText(std::string(kMaxStudentTextBytes, 'y').c_str()),
            std::string(kMaxStudentTextBytes, 'y'));
  EXPECT_EQ(StudentText(nullptr), "");
}

}  // namespace
}  // namespace labkit
