#include "submissions.h"

#ifdef LABKIT_HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>
#endif

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <sstream>

namespace labkit {
namespace fs = std::filesystem;

namespace {

constexpr long long kMaxUnpackedBytes = 50LL << 20;  // a lab submission is a few source files
constexpr int kMaxEntries = 2000;

bool IsArchiveName(const std::string& name) {
  for (const char* ext : {".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tar.xz"})
    if (name.size() > std::strlen(ext) &&
        name.compare(name.size() - std::strlen(ext), std::strlen(ext), ext) == 0)
      return true;
  return false;
}

std::string StemOf(const std::string& name) {
  for (const char* ext : {".tar.gz", ".tar.bz2", ".tar.xz", ".tgz", ".zip", ".tar"}) {
    const std::size_t n = std::strlen(ext);
    if (name.size() > n && name.compare(name.size() - n, n, ext) == 0)
      return name.substr(0, name.size() - n);
  }
  return name;
}

bool IsJunk(const std::string& name) {
  return name == "__MACOSX" || name == ".DS_Store" || name == "Thumbs.db" ||
         (!name.empty() && name[0] == '.');
}

}  // namespace

std::string Slugify(const std::string& name) {
  std::string slug;
  bool changed = false;
  for (unsigned char c : name) {
    const bool ok = std::isalnum(c) || c == '.' || c == '_' || c == '-';
    slug += ok && c < 128 ? static_cast<char>(c) : '_';
    changed = changed || !ok || c >= 128;
  }
  if (slug.empty() || slug[0] == '.') {
    slug = "_" + slug;
    changed = true;
  }
  if (changed) {
    std::ostringstream hash;
    hash << std::hex << std::setw(6) << std::setfill('0')
         << (std::hash<std::string>{}(name)&0xFFFFFF);
    slug += "-" + hash.str();
  }
  return slug;
}

Result<std::vector<Submission>> FindSubmissions(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return MakeError("no submissions folder " + dir);
  std::vector<Submission> found;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string file = entry.path().filename().string();
    if (IsJunk(file)) continue;
    // Links are never followed: one could lead the grader (root, often) anywhere.
    const bool link = entry.is_symlink();
    const bool folder = !link && entry.is_directory();
    if (!folder && !IsArchiveName(file) && !link) continue;
    Submission s;
    s.name = folder || link ? file : StemOf(file);
    s.path = entry.path().string();
    s.archive = !folder && !link;
    if (link)
      s.problem = file +
                  " is a symbolic link; labgrade does not follow links in the submissions "
                  "folder (copy the submission there)";
    found.push_back(std::move(s));
  }
  if (ec) return MakeError("cannot list " + dir + ": " + ec.message());
  std::sort(found.begin(), found.end(),
            [](const Submission& a, const Submission& b) { return a.name < b.name; });
  std::vector<std::string> used;
  for (Submission& s : found) {
    s.slug = Slugify(s.name);
    // Two archives of one student (x.zip and x.tar) would share a slug: keep the first.
    while (std::find(used.begin(), used.end(), s.slug) != used.end()) s.slug += "_";
    used.push_back(s.slug);
  }
  return found;
}

Status UnpackArchive(const std::string& archive_path, const std::string& dest) {
  fs::create_directories(dest);
#ifndef LABKIT_HAVE_LIBARCHIVE
  return MakeError("this build of labgrade cannot read archives (no libarchive): unpack " +
                   archive_path + " into a folder");
#else
  struct archive* in = archive_read_new();
  archive_read_support_format_zip(in);
  archive_read_support_format_tar(in);
  archive_read_support_format_gnutar(in);
  archive_read_support_filter_all(in);
  struct archive* out = archive_write_disk_new();
  // Entries are placed under `dest` by an absolute path built here (libarchive would otherwise
  // write relative to the process's working folder); names are vetted before that.
  archive_write_disk_set_options(out, ARCHIVE_EXTRACT_SECURE_NODOTDOT |
                                          ARCHIVE_EXTRACT_SECURE_SYMLINKS);
  auto finish = [&](Status status) {
    archive_read_free(in);
    archive_write_free(out);
    return status;
  };
  // A FIFO named ana.zip would block the reader forever, a link would read a file of its choosing:
  // opened as every file of a submission is (untrusted_file.h), then read through the descriptor.
  const int fd = open(archive_path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    if (fd >= 0) close(fd);
    return finish(MakeError("not a regular file (a FIFO, a link or a device?)"));
  }
  if (st.st_size > kMaxUnpackedBytes) {
    close(fd);
    return finish(MakeError("more than 50 MiB: not a lab submission"));
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  if (archive_read_open_fd(in, fd, 1 << 16) != ARCHIVE_OK) {
    close(fd);
    return finish(MakeError("not a zip or tar archive that can be read: " +
                            std::string(archive_error_string(in) ? archive_error_string(in) : "")));
  }
  struct CloseOnReturn {
    int fd;
    ~CloseOnReturn() { close(fd); }
  } close_fd{fd};
  long long total = 0;
  int entries = 0;
  archive_entry* entry = nullptr;
  int r;
  while ((r = archive_read_next_header(in, &entry)) == ARCHIVE_OK) {
    if (++entries > kMaxEntries)
      return finish(
          MakeError("more than " + std::to_string(kMaxEntries) + " files in the archive"));
    const std::string name = archive_entry_pathname(entry) ? archive_entry_pathname(entry) : "";
    const auto type = archive_entry_filetype(entry);
    if (type != AE_IFREG && type != AE_IFDIR) continue;  // links and devices are not source code
    const fs::path relative = fs::path(name).lexically_normal();
    if (relative.is_absolute() || relative.empty() || *relative.begin() == "..")
      return finish(MakeError("an entry escapes the folder: " + name));
    const std::string target = (fs::path(dest) / name).lexically_normal().string();
    archive_entry_set_pathname(entry, target.c_str());
    if (archive_write_header(out, entry) != ARCHIVE_OK)
      return finish(MakeError("an entry cannot be unpacked safely: " + name + " (" +
                              (archive_error_string(out) ? archive_error_string(out) : "") + ")"));
    const void* block;
    size_t size;
    la_int64_t offset;
    while (archive_read_data_block(in, &block, &size, &offset) == ARCHIVE_OK) {
      total += static_cast<long long>(size);
      if (total > kMaxUnpackedBytes)
        return finish(MakeError("more than 50 MiB once unpacked: not a lab submission"));
      archive_write_data_block(out, block, size, offset);
    }
    archive_write_finish_entry(out);
  }
  if (r != ARCHIVE_EOF)
    return finish(MakeError("the archive is damaged: " +
                            std::string(archive_error_string(in) ? archive_error_string(in) : "")));
  return finish(Status::Ok());
#endif
}

std::string FindSourceFolder(const std::string& root, const std::vector<std::string>& files) {
  if (files.empty() || fs::exists(fs::path(root) / files.front())) return root;
  std::string best;
  std::size_t best_depth = SIZE_MAX;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); it != fs::recursive_directory_iterator();
       it.increment(ec)) {
    if (ec) break;
    if (IsJunk(it->path().filename().string())) {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->path().filename() == files.front() && static_cast<std::size_t>(it.depth()) < best_depth) {
      best = it->path().parent_path().string();
      best_depth = it.depth();
    }
  }
  return best.empty() ? root : best;
}

}  // namespace labkit
