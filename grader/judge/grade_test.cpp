#include "grade.h"

#include <gtest/gtest.h>

namespace labkit {
namespace {

TEST(SubmissionFolder, DropsATrailingSlash) {
  EXPECT_EQ(SubmissionFolder("/class/ana/"), "/class/ana");
  EXPECT_EQ(SubmissionFolder("/class/ana//"), "/class/ana");
  EXPECT_EQ(SubmissionFolder("/class/./ana"), "/class/ana");
  EXPECT_EQ(SubmissionFolder("/"), "/");
}

// Before, `--src ana/` gave the submission an empty name in every report.
TEST(SubmissionFolder, NamesTheFolderWithOrWithoutTrailingSlash) {
  EXPECT_EQ(SubmissionNameOf("/class/ana/"), "ana");
  EXPECT_EQ(SubmissionNameOf("/class/ana"), "ana");
  EXPECT_EQ(SubmissionNameOf("ana/"), "ana");
}

}  // namespace
}  // namespace labkit
