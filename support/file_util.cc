/*! \file file_util.cc
 *  \brief Whole-file reads and atomic writes.
 */
#include "support/file_util.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace mlc {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  // One read of the known size into one buffer: artifacts are hundreds of megabytes.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  struct stat st;
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    const std::string err = S_ISDIR(st.st_mode) ? "is a directory" : std::strerror(errno);
    close(fd);
    return absl::DataLossError(absl::StrCat(path, ": cannot read: ", err));
  }
  std::string out;
  // Pipes and /proc files report no size: read until the end, growing as needed.
  out.resize(S_ISREG(st.st_mode) && st.st_size > 0 ? static_cast<size_t>(st.st_size) : 65536);
  size_t have = 0;
  while (true) {
    if (have == out.size()) {
      // Full: at the end (the usual case, seen without growing) or the file is longer.
      char probe[4096];
      ssize_t n = read(fd, probe, sizeof(probe));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (n == 0) break;
        const std::string err = std::strerror(errno);
        close(fd);
        return absl::DataLossError(absl::StrCat(path, ": read error: ", err));
      }
      out.resize(out.size() * 2);
      std::memcpy(out.data() + have, probe, static_cast<size_t>(n));
      have += static_cast<size_t>(n);
      continue;
    }
    ssize_t n = read(fd, out.data() + have, out.size() - have);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string err = std::strerror(errno);
      close(fd);
      return absl::DataLossError(absl::StrCat(path, ": read error: ", err));
    }
    if (n == 0) break;
    have += static_cast<size_t>(n);
  }
  close(fd);
  out.resize(have);
  return out;
}

absl::StatusOr<MappedFile> MappedFile::Open(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(absl::StrCat(path, ": cannot open: ", std::strerror(errno)));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return absl::DataLossError(absl::StrCat(path, ": not a regular file"));
  }
  MappedFile f;
  f.size_ = static_cast<size_t>(st.st_size);
  if (f.size_ > 0) {
    f.data_ = mmap(nullptr, f.size_, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    if (f.data_ == MAP_FAILED) {
      f.data_ = nullptr;
      const std::string err = std::strerror(errno);
      close(fd);
      return absl::ResourceExhaustedError(absl::StrCat(path, ": cannot map: ", err));
    }
    madvise(f.data_, f.size_, MADV_SEQUENTIAL);  // read once, front to back
  }
  close(fd);
  return f;
}

MappedFile::MappedFile(MappedFile&& other) noexcept : data_(other.data_), size_(other.size_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) munmap(data_, size_);
    data_ = other.data_;
    size_ = other.size_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) munmap(data_, size_);
}

absl::Status WriteFileAtomically(const std::string& path, const std::string& contents) {
  return WriteFileAtomically(path, std::vector<absl::string_view>{contents});
}

absl::Status WriteFileAtomically(const std::string& path, const std::vector<absl::string_view>& pieces) {
  std::string tmp = absl::StrCat(path, ".tmp.XXXXXX");
  int fd = mkstemp(tmp.data());
  if (fd < 0)
    return absl::PermissionDeniedError(absl::StrCat(path, ": cannot create a temporary file: ", std::strerror(errno)));
  for (absl::string_view piece : pieces) {
    const char* data = piece.data();
    size_t left = piece.size();
    while (left > 0) {
      ssize_t n = write(fd, data, left);
      if (n < 0) {
        if (errno == EINTR) continue;
        std::string err = std::strerror(errno);
        close(fd);
        unlink(tmp.c_str());
        return absl::DataLossError(absl::StrCat(path, ": write failed: ", err));
      }
      data += n;
      left -= static_cast<size_t>(n);
    }
  }
  // mkstemp creates 0600; outputs are ordinary files.
  fchmod(fd, 0644);
  // No fsync: like a compiler's outputs the file is atomic (renamed into place whole) but not
  // forced to disk, which took longer than writing it (1.1 s of a 1 GB module). A file a power
  // failure leaves incomplete is caught on load by its seal or its parser.
  if (close(fd) != 0) {
    unlink(tmp.c_str());
    return absl::DataLossError(absl::StrCat(path, ": cannot close: ", std::strerror(errno)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string err = std::strerror(errno);
    unlink(tmp.c_str());
    return absl::PermissionDeniedError(absl::StrCat(path, ": cannot rename the temporary file into place: ", err));
  }
  return absl::OkStatus();
}

std::string UserPath(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  if (const char* wd = std::getenv("BUILD_WORKING_DIRECTORY")) return absl::StrCat(wd, "/", path);
  std::error_code ec;
  std::string absolute = std::filesystem::absolute(path, ec).string();
  return ec ? path : absolute;
}

void EnterUserDirectory() {
  const char* wd = std::getenv("BUILD_WORKING_DIRECTORY");
  if (wd == nullptr || *wd == '\0') return;
  if (chdir(wd) != 0)
    std::fprintf(stderr, "warning: cannot enter %s (%s); relative paths are Bazel's\n", wd, std::strerror(errno));
}

}  // namespace mlc
