// Reading and writing files in folders a submission's code can write (its scratch folder, where
// the harness leaves its report and outputs) or that a student handed in. Such a path may be a
// FIFO that blocks a reader forever, a symbolic link that makes a writer running as root write
// over a file of its choosing, a directory, or a file of gigabytes. Every such open goes through
// here: O_NOFOLLOW (a link at the path is refused, never followed), O_NONBLOCK for reads, fstat to
// demand a regular file, a size bound, and a deadline.
#pragma once

#include <cstddef>
#include <string>

#include "result.h"

namespace labkit {

// The most a student's source file may hold (a lab's file is a few kilobytes).
constexpr std::size_t kMaxSourceBytes = 1u << 20;

// The whole file, at most `max_bytes` of it. Errors name the path and the cause: "... does not
// exist", "... is a symbolic link", "... is not a regular file (a FIFO)", "... is larger than N
// bytes", "... could not be read within N s".
Result<std::string> ReadUntrustedFile(const std::string& path, std::size_t max_bytes,
                                      double timeout_seconds = 10);

// Whether ReadUntrustedFile failed because nothing is there (callers treat that as "no report").
bool IsMissingFileError(const std::string& error);

// Replaces whatever is at `path` (a file, a link, a FIFO; never a directory) by a new regular file
// holding `bytes`: the old entry is unlinked, and the new one created with O_CREAT | O_EXCL |
// O_NOFOLLOW, so nothing already there, a link above all, is ever written through. The parent
// folder itself must not be a symbolic link either.
Status WriteUntrustedFile(const std::string& path, const std::string& bytes,
                          double timeout_seconds = 30);

}  // namespace labkit
