/*! \file data_section.cc */
#include "support/data_section.h"

#include "absl/strings/str_cat.h"
#include "support/file_util.h"
#include "support/sealed_file.h"

namespace mlc {
namespace {

constexpr size_t kLengthBytes = 8;
// Zeros enough for any padding (less than one alignment unit).
constexpr char kZeros[kDataAlignment] = {};

uint64_t AlignUp(uint64_t n) { return (n + kDataAlignment - 1) / kDataAlignment * kDataAlignment; }

// The zeros after a message of `message_bytes`, so the data section starts aligned in the file.
uint64_t PaddingAfter(uint64_t message_bytes) {
  const uint64_t end = kSealHeaderBytes + kLengthBytes + message_bytes;
  return AlignUp(end) - end;
}

std::string EncodeLength(uint64_t n) {
  std::string out;
  for (int b = 0; b < 8; ++b) out.push_back(static_cast<char>((n >> (8 * b)) & 0xff));
  return out;
}

}  // namespace

uint64_t DataSectionWriter::Add(absl::string_view bytes) {
  auto [known, added] = offsets_.try_emplace({bytes.data(), bytes.size()}, 0);
  if (!added) return known->second;
  const uint64_t at = AlignUp(size_);
  known->second = at;
  blocks_.emplace_back(at, bytes);
  size_ = at + bytes.size();
  return at;
}

std::vector<absl::string_view> DataSectionWriter::Pieces(const std::string& length, const std::string& message) const {
  std::vector<absl::string_view> pieces = {length, message, absl::string_view(kZeros, PaddingAfter(message.size()))};
  uint64_t at = 0;
  for (const auto& [offset, bytes] : blocks_) {
    pieces.push_back(absl::string_view(kZeros, offset - at));
    pieces.push_back(bytes);
    at = offset + bytes.size();
  }
  return pieces;
}

absl::Status DataSectionWriter::WriteFile(const std::string& path, const std::string& kind, uint32_t format_version,
                                          const std::string& message, const SigningKey* signer) const {
  const std::string length = EncodeLength(message.size());
  std::vector<absl::string_view> pieces = Pieces(length, message);
  SealParts seal = SealAround(kind, format_version, pieces, signer);
  pieces.insert(pieces.begin(), seal.header);
  pieces.push_back(seal.trailer);
  return WriteFileAtomically(path, pieces);
}

std::string DataSectionWriter::Serialize(const std::string& kind, uint32_t format_version, const std::string& message,
                                         const SigningKey* signer) const {
  const std::string length = EncodeLength(message.size());
  std::vector<absl::string_view> pieces = Pieces(length, message);
  SealParts seal = SealAround(kind, format_version, pieces, signer);
  std::string out = seal.header;
  size_t total = out.size() + seal.trailer.size();
  for (absl::string_view p : pieces) total += p.size();
  out.reserve(total);
  for (absl::string_view p : pieces) out.append(p.data(), p.size());
  out += seal.trailer;
  return out;
}

absl::StatusOr<absl::string_view> DataSectionPayload::Block(uint64_t offset, uint64_t size,
                                                            const std::string& what) const {
  if (offset > data.size() || size > data.size() - offset) {
    return absl::DataLossError(absl::StrCat(what, " lies outside the data section (", size, " bytes at ", offset,
                                            ", the section holds ", data.size(), ")"));
  }
  return data.substr(offset, size);
}

absl::StatusOr<DataSectionPayload> SplitDataSection(absl::string_view payload, const std::string& source) {
  if (payload.size() < kLengthBytes) return absl::DataLossError(absl::StrCat(source, ": no message length"));
  uint64_t message_bytes = 0;
  for (int b = 0; b < 8; ++b) message_bytes |= static_cast<uint64_t>(static_cast<unsigned char>(payload[b])) << (8 * b);
  if (message_bytes > payload.size() - kLengthBytes || message_bytes > uint64_t{INT32_MAX}) {
    return absl::DataLossError(absl::StrCat(source, ": the message's length (", message_bytes, ") exceeds the file"));
  }
  DataSectionPayload out;
  out.message = payload.substr(kLengthBytes, message_bytes);
  const uint64_t data_start = kLengthBytes + message_bytes + PaddingAfter(message_bytes);
  out.data = data_start <= payload.size() ? payload.substr(data_start) : absl::string_view();
  return out;
}

}  // namespace mlc
