#include "user_processes.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace labkit {
namespace {

// Ids far above any real user's and unlike labgrade's own sandbox ids (sandbox_user.h).
constexpr uid_t kUnusedId = 1'500'000'123;
constexpr uid_t kTestId = 1'500'000'456;

TEST(StatusNamesUid, MatchesAnyOfTheFourIdsOfTheUidLine) {
  const std::string status = "Name:\tsleep\nUmask:\t0022\nUid:\t1000\t1001\t1002\t1003\nGid:\t7\t7\t7\t7\n";
  EXPECT_TRUE(StatusNamesUid(status, 1000));
  EXPECT_TRUE(StatusNamesUid(status, 1003));
  EXPECT_FALSE(StatusNamesUid(status, 7));  // a group id is not a user id
  EXPECT_FALSE(StatusNamesUid(status, 100));
  EXPECT_FALSE(StatusNamesUid("", 0));
}

TEST(AnyProcessOfUser, FindsThisProcessAndNoneOfAnUnusedId) {
  EXPECT_TRUE(AnyProcessOfUser(getuid()));
  EXPECT_FALSE(AnyProcessOfUser(kUnusedId));
}

TEST(KillAllOfUser, KillsEveryProcessOfTheIdAndNothingElse) {
  if (getuid() != 0) GTEST_SKIP() << "needs root, to start a process under another user id";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(ready[0]);
    if (syscall(SYS_setresgid, kTestId, kTestId, kTestId) != 0 ||
        syscall(SYS_setresuid, kTestId, kTestId, kTestId) != 0)
      _exit(3);
    close(ready[1]);  // tells the test the id has changed
    pause();
    _exit(0);
  }
  close(ready[1]);
  char byte;
  ASSERT_EQ(read(ready[0], &byte, 1), 0);
  close(ready[0]);
  EXPECT_TRUE(AnyProcessOfUser(kTestId));

  KillAllOfUser(kTestId);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_FALSE(AnyProcessOfUser(kTestId));
  EXPECT_TRUE(AnyProcessOfUser(getuid()));  // the test itself lives on
}

TEST(KillAllOfUser, NeverTouchesRoot) {
  KillAllOfUser(0);
  EXPECT_TRUE(AnyProcessOfUser(getuid()));
}

}  // namespace
}  // namespace labkit
