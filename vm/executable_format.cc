/*! \file executable_format.cc
 *  \brief *.mlcx bytes <-> the Executable message and its data section, through the sealed
 *         envelope.
 */
#include "vm/executable_format.h"

#include "absl/strings/str_cat.h"
#include "support/checked_math.h"
#include "support/data_section.h"
#include "support/sealed_file.h"

namespace mlc {
namespace vm {
namespace {

// Moves the constants' bytes out of `exe` into `data` (kept alive for the write) and places
// them in `section`, recording their offsets in the message.
void MoveConstantsToSection(proto::Executable* exe, std::vector<std::string>* data, DataSectionWriter* section) {
  data->resize(static_cast<size_t>(exe->constants_size()));
  exe->clear_constant_offsets();
  for (int i = 0; i < exe->constants_size(); ++i) {
    (*data)[i].swap(*exe->mutable_constants(i)->mutable_data());
    exe->add_constant_offsets(section->Add((*data)[i]));
  }
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

absl::Status CheckConstantOffsets(const proto::Executable& exe, absl::string_view constant_data) {
  if (exe.constant_offsets_size() != exe.constants_size()) {
    return absl::DataLossError(absl::StrCat("the executable has ", exe.constants_size(), " constants and ",
                                            exe.constant_offsets_size(), " data offsets"));
  }
  const DataSectionPayload section{absl::string_view(), constant_data};
  for (int i = 0; i < exe.constants_size(); ++i) {
    const int64_t size = ConstantBytes(exe.constants(i));
    if (size < 0) return absl::DataLossError(absl::StrCat("constant ", i, ": its shape overflows"));
    absl::StatusOr<absl::string_view> block =
        section.Block(exe.constant_offsets(i), static_cast<uint64_t>(size), absl::StrCat("constant ", i));
    if (!block.ok()) return block.status();
  }
  return absl::OkStatus();
}

std::string SerializeExecutable(proto::Executable exe, const SigningKey* signer) {
  std::vector<std::string> data;
  DataSectionWriter section;
  MoveConstantsToSection(&exe, &data, &section);
  return section.Serialize(kExecutableMagic, kExecutableFormatVersion, exe.SerializeAsString(), signer);
}

absl::Status WriteExecutable(const std::string& path, proto::Executable exe, const SigningKey* signer) {
  std::vector<std::string> data;
  DataSectionWriter section;
  MoveConstantsToSection(&exe, &data, &section);
  return section.WriteFile(path, kExecutableMagic, kExecutableFormatVersion, exe.SerializeAsString(), signer);
}

absl::StatusOr<ExecutableSections> ReadExecutable(absl::string_view bytes, const std::string& source,
                                                  const std::vector<std::string>& trusted_keys) {
  absl::StatusOr<absl::string_view> payload =
      Unseal(bytes, kExecutableMagic, kExecutableFormatVersion, source, trusted_keys);
  if (!payload.ok()) return payload.status();
  // An intact envelope around contents that do not read: a faulty writer, not transit damage.
  absl::StatusOr<DataSectionPayload> parts = SplitDataSection(*payload, source);
  if (!parts.ok()) return parts.status();
  ExecutableSections out;
  if (!out.exe.ParseFromArray(parts->message.data(), static_cast<int>(parts->message.size()))) {
    return absl::DataLossError(absl::StrCat(source, ": the executable message does not parse"));
  }
  if (absl::Status s = CheckConstantOffsets(out.exe, parts->data); !s.ok()) {
    return absl::DataLossError(absl::StrCat(source, ": ", s.message()));
  }
  out.constant_data = parts->data;
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
