/*! \file file_util.h
 *  \brief Whole-file reads and atomic writes (temporary file in the same directory, then
 *         rename), so a reader never sees a half-written output.
 */
#ifndef MLC_SUPPORT_FILE_UTIL_H_
#define MLC_SUPPORT_FILE_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace mlc {

absl::StatusOr<std::string> ReadFile(const std::string& path);

/*! \brief A file's bytes mapped into memory (private, copy-on-write): a large artifact read
 *         without copying it onto the heap first. */
class MappedFile {
 public:
  static absl::StatusOr<MappedFile> Open(const std::string& path);
  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();
  absl::string_view bytes() const { return absl::string_view(static_cast<const char*>(data_), size_); }

 private:
  MappedFile() = default;
  void* data_ = nullptr;
  size_t size_ = 0;
};

/*! \brief Writes `contents` to `path` atomically: either the old file or the complete new one
 *         is visible, never a prefix. Not synced to disk (as compilers' outputs are not). */
absl::Status WriteFileAtomically(const std::string& path, const std::string& contents);
/*! \brief The same for contents given in pieces, written one after the other (no copy joins them). */
absl::Status WriteFileAtomically(const std::string& path, const std::vector<absl::string_view>& pieces);

/*! \brief A path the user gave on the command line, made absolute: relative to the directory
 *  `./bazelw run` was started in (BUILD_WORKING_DIRECTORY) when run that way, else to the
 *  working directory. */
std::string UserPath(const std::string& path);

/*! \brief Under `./bazelw run` (BUILD_WORKING_DIRECTORY set), makes the directory the user
 *  started it in the working directory, so relative paths in flags mean what the user meant
 *  (Bazel starts a binary in its runfiles). For stage binaries, which read no runfiles. */
void EnterUserDirectory();

}  // namespace mlc

#endif  // MLC_SUPPORT_FILE_UTIL_H_
