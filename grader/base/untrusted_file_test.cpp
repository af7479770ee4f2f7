#include "untrusted_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

namespace labkit {
namespace {
namespace fs = std::filesystem;

class UntrustedFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("labkit_untrusted_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string At(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(UntrustedFile, ReadsARegularFile) {
  std::ofstream(At("a")) << "hello";
  auto r = ReadUntrustedFile(At("a"), 100);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(*r, "hello");
}

TEST_F(UntrustedFile, MissingIsSaidSo) {
  auto r = ReadUntrustedFile(At("none"), 100);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(IsMissingFileError(r.error())) << r.error();
}

// A FIFO with no writer: a plain open would block forever; this returns at once.
TEST_F(UntrustedFile, FifoIsRefusedWithoutBlocking) {
  ASSERT_EQ(mkfifo(At("fifo").c_str(), 0644), 0);
  const auto start = std::chrono::steady_clock::now();
  auto r = ReadUntrustedFile(At("fifo"), 100, 2);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), At("fifo") + " is not a regular file (a FIFO)");
}

TEST_F(UntrustedFile, SymbolicLinkIsNotFollowedForReading) {
  std::ofstream(At("secret")) << "root's";
  fs::create_symlink(At("secret"), At("link"));
  auto r = ReadUntrustedFile(At("link"), 100);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), At("link") + " is a symbolic link (not followed)");
}

TEST_F(UntrustedFile, OversizeIsRefused) {
  std::ofstream(At("big")) << std::string(1001, 'x');
  auto r = ReadUntrustedFile(At("big"), 1000);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), At("big") + " is larger than 1000 bytes");
}

TEST_F(UntrustedFile, DirectoryInsteadOfFile) {
  fs::create_directories(At("d"));
  auto r = ReadUntrustedFile(At("d"), 100);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), At("d") + " is not a regular file (a directory)");
  const Status w = WriteUntrustedFile(At("d"), "x");
  EXPECT_FALSE(w.ok());
  EXPECT_TRUE(fs::is_directory(At("d")));
}

// A link planted where labgrade (as root) writes: the link is replaced, its target untouched.
TEST_F(UntrustedFile, WriteNeverGoesThroughASymbolicLink) {
  std::ofstream(At("target")) << "precious";
  fs::create_symlink(At("target"), At("request.json"));
  ASSERT_TRUE(WriteUntrustedFile(At("request.json"), "new").ok());
  EXPECT_FALSE(fs::is_symlink(At("request.json")));
  EXPECT_EQ(*ReadUntrustedFile(At("request.json"), 100), "new");
  EXPECT_EQ(*ReadUntrustedFile(At("target"), 100), "precious");
}

TEST_F(UntrustedFile, WriteReplacesAFifo) {
  ASSERT_EQ(mkfifo(At("c0.A.f32").c_str(), 0644), 0);
  ASSERT_TRUE(WriteUntrustedFile(At("c0.A.f32"), "data").ok());
  EXPECT_EQ(*ReadUntrustedFile(At("c0.A.f32"), 100), "data");
}

TEST_F(UntrustedFile, WriteRefusesALinkedParentFolder) {
  fs::create_directories(At("elsewhere"));
  fs::create_directory_symlink(At("elsewhere"), At("run"));
  const Status w = WriteUntrustedFile(At("run") + "/request.json", "x");
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.error(), At("run") + " is a symbolic link (not followed)");
  EXPECT_FALSE(fs::exists(At("elsewhere") + "/request.json"));
}

}  // namespace
}  // namespace labkit
