/*! \file executable_format.cc
 *  \brief *.mlcx bytes <-> the Executable message and its data section, through the sealed
 *         envelope.
 */
#include "vm/executable_format.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "support/checked_math.h"
#include "support/sealed_file.h"

namespace mlc {
namespace vm {
namespace {

constexpr size_t kLengthBytes = 8;

size_t AlignUp(size_t n, size_t a) { return (n + a - 1) / a * a; }

// Zeros after a message of `message_bytes`, so the data section starts aligned in the file.
size_t PaddingAfter(size_t message_bytes) {
  const size_t end = kSealHeaderBytes + kLengthBytes + message_bytes;
  return AlignUp(end, kConstantAlignment) - end;
}

}  // namespace

int64_t ConstantBytes(const proto::TensorProto& c) {
  int64_t n = 1;
  for (int64_t d : c.shape()) {
    if (d < 0) return -1;
    n = SaturatingMul(n, d);
  }
  const int64_t bits = SaturatingMul(n, static_cast<int64_t>(c.dtype().bits()));
  return bits >= INT64_MAX / 2 ? -1 : (bits + 7) / 8;
}

std::string SerializeExecutable(proto::Executable exe, const SigningKey* signer) {
  std::vector<std::string> data(static_cast<size_t>(exe.constants_size()));
  exe.clear_constant_offsets();
  size_t data_bytes = 0;
  for (int i = 0; i < exe.constants_size(); ++i) {
    data[i].swap(*exe.mutable_constants(i)->mutable_data());
    data_bytes = AlignUp(data_bytes, kConstantAlignment);
    exe.add_constant_offsets(data_bytes);
    data_bytes += data[i].size();
  }
  const std::string message = exe.SerializeAsString();
  const size_t data_start = kSealHeaderBytes + kLengthBytes + message.size() + PaddingAfter(message.size());
  std::string bytes;
  bytes.reserve(data_start + data_bytes + (signer != nullptr ? kSignatureTrailerBytes : 0));
  bytes.resize(kSealHeaderBytes);
  for (int b = 0; b < 8; ++b) bytes.push_back(static_cast<char>((static_cast<uint64_t>(message.size()) >> (8 * b)) & 0xff));
  bytes += message;
  bytes.resize(data_start, '\0');
  for (int i = 0; i < exe.constants_size(); ++i) {
    bytes.resize(data_start + exe.constant_offsets(i), '\0');
    bytes += data[i];
  }
  SealInPlace(kExecutableMagic, kExecutableFormatVersion, &bytes, signer);
  return bytes;
}

absl::StatusOr<ExecutableSections> ReadExecutable(absl::string_view bytes, const std::string& source,
                                                  const std::vector<std::string>& trusted_keys) {
  absl::StatusOr<absl::string_view> payload = Unseal(bytes, kExecutableMagic, kExecutableFormatVersion, source, trusted_keys);
  if (!payload.ok()) return payload.status();
  // An intact envelope around contents that do not read: a faulty writer, not transit damage.
  auto malformed = [&](const std::string& what) { return absl::DataLossError(absl::StrCat(source, ": ", what)); };
  if (payload->size() < kLengthBytes) return malformed("the executable has no message length");
  uint64_t message_bytes = 0;
  for (int b = 0; b < 8; ++b) message_bytes |= static_cast<uint64_t>(static_cast<unsigned char>((*payload)[b])) << (8 * b);
  if (message_bytes > payload->size() - kLengthBytes || message_bytes > size_t{INT32_MAX}) {
    return malformed(absl::StrCat("the executable message's length (", message_bytes, ") exceeds the file"));
  }
  ExecutableSections out;
  if (!out.exe.ParseFromArray(payload->data() + kLengthBytes, static_cast<int>(message_bytes))) {
    return malformed("the executable message does not parse");
  }
  const size_t data_start = kLengthBytes + message_bytes + PaddingAfter(message_bytes);
  out.constant_data = payload->substr(std::min(data_start, payload->size()));
  if (out.exe.constant_offsets_size() != out.exe.constants_size()) {
    return malformed(absl::StrCat("the executable has ", out.exe.constants_size(), " constants and ",
                                  out.exe.constant_offsets_size(), " data offsets"));
  }
  for (int i = 0; i < out.exe.constants_size(); ++i) {
    const int64_t size = ConstantBytes(out.exe.constants(i));
    const uint64_t at = out.exe.constant_offsets(i);
    if (size < 0 || at > out.constant_data.size() || static_cast<uint64_t>(size) > out.constant_data.size() - at) {
      return malformed(absl::StrCat("constant ", i, " lies outside the data section"));
    }
  }
  return out;
}

absl::StatusOr<proto::Executable> ParseExecutable(absl::string_view bytes, const std::string& source,
                                                  const std::vector<std::string>& trusted_keys) {
  absl::StatusOr<ExecutableSections> sections = ReadExecutable(bytes, source, trusted_keys);
  if (!sections.ok()) return sections.status();
  for (int i = 0; i < sections->exe.constants_size(); ++i) {
    proto::TensorProto* c = sections->exe.mutable_constants(i);
    c->set_data(std::string(sections->constant_data.substr(sections->exe.constant_offsets(i), ConstantBytes(*c))));
  }
  sections->exe.clear_constant_offsets();
  return std::move(sections->exe);
}

}  // namespace vm
}  // namespace mlc
