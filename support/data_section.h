/*! \file data_section.h
 *  \brief The payload of artifacts that carry a model's weights (IRModules, executables): a
 *         Protobuf message without the weights' bytes, then the bytes themselves.
 *
 *  Inside the sealed envelope (support/sealed_file.h): the message's length (8 bytes,
 *  little-endian), the message, zeros up to a file offset that is a multiple of kDataAlignment,
 *  then the data section, in which every block starts at a multiple of kDataAlignment. The
 *  message refers to a block by its offset in the data section.
 *
 *  Writing appends each block straight from where it lies to the file (no copy joins them) and
 *  hashes it on the way; reading maps the file (MappedFile), parses the small message and copies
 *  each block once, to where it is used. A 1 GB model was copied five times through a Protobuf
 *  `bytes` field before (issue 37).
 */
#ifndef MLC_SUPPORT_DATA_SECTION_H_
#define MLC_SUPPORT_DATA_SECTION_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "support/signature.h"

namespace mlc {

inline constexpr size_t kDataAlignment = 64;

/*! \brief The blocks of a data section as it is assembled. */
class DataSectionWriter {
 public:
  /*! \brief Appends `bytes` (not copied: they must outlive the write) and returns its offset;
   *  the same bytes again (the same address and size: a constant that several functions
   *  share) are stored once and get the first offset. */
  uint64_t Add(absl::string_view bytes);
  uint64_t size() const { return size_; }

  /*! \brief Writes `message` and the blocks, sealed as `kind` and `format_version`, to `path`
   *         atomically. */
  absl::Status WriteFile(const std::string& path, const std::string& kind, uint32_t format_version,
                         const std::string& message, const SigningKey* signer = nullptr) const;
  /*! \brief The same file's bytes, in memory. */
  std::string Serialize(const std::string& kind, uint32_t format_version, const std::string& message,
                        const SigningKey* signer = nullptr) const;

 private:
  /*! \brief The payload's pieces, for a message of `message` and this section. */
  std::vector<absl::string_view> Pieces(const std::string& length, const std::string& message) const;
  std::vector<std::pair<uint64_t, absl::string_view>> blocks_;  // offset, bytes
  std::map<std::pair<const char*, size_t>, uint64_t> offsets_;  // (address, size) -> offset
  uint64_t size_ = 0;
};

/*! \brief A sealed payload split into its message and its data section (views into it). */
struct DataSectionPayload {
  absl::string_view message, data;
  /*! \brief The block of `size` bytes at `offset`, or an error naming `what` when it does not lie
   *         inside the data section. */
  absl::StatusOr<absl::string_view> Block(uint64_t offset, uint64_t size, const std::string& what) const;
};
/*! \brief Splits an unsealed payload; `source` names the file in errors. */
absl::StatusOr<DataSectionPayload> SplitDataSection(absl::string_view payload, const std::string& source);

}  // namespace mlc

#endif  // MLC_SUPPORT_DATA_SECTION_H_
