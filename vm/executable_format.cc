/*! \file executable_format.cc
 *  \brief *.mlcx bytes <-> the Executable message, through the sealed envelope.
 */
#include "vm/executable_format.h"

#include "absl/strings/str_cat.h"
#include "support/sealed_file.h"

namespace mlc {
namespace vm {

std::string SerializeExecutable(const proto::Executable& exe, const SigningKey* signer) {
  std::string bytes(kSealHeaderBytes, '\0');
  exe.AppendToString(&bytes);
  SealInPlace(kExecutableMagic, kExecutableFormatVersion, &bytes, signer);
  return bytes;
}

absl::StatusOr<proto::Executable> ParseExecutable(const std::string& bytes, const std::string& source,
                                                  const std::vector<std::string>& trusted_keys) {
  absl::StatusOr<absl::string_view> payload = Unseal(bytes, kExecutableMagic, kExecutableFormatVersion, source, trusted_keys);
  if (!payload.ok()) return payload.status();
  proto::Executable exe;
  // Intact envelope, unreadable message: written by a faulty writer, not damaged in transit.
  if (!exe.ParseFromArray(payload->data(), static_cast<int>(payload->size()))) return absl::DataLossError(absl::StrCat(source, ": the executable message does not parse"));
  return exe;
}

}  // namespace vm
}  // namespace mlc
