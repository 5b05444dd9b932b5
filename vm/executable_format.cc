/*! \file executable_format.cc
 *  \brief *.mlcx bytes <-> the Executable message and its data section, through the sealed
 *         envelope.
 */
#include "vm/executable_format.h"

#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "support/checked_math.h"
#include "support/data_section.h"
#include "support/sealed_file.h"

namespace mlc {
namespace vm {
namespace {

// A symbolic dimension is an expression tree (DimExpr), two messages deep per operator, so the
// messages nest past protobuf's default limit of 100; bounded still, so that a hostile file
// cannot exhaust the stack.
constexpr int kMaxMessageDepth = 2 * kMaxDimExprDepth + 64;

// Moves the constants' bytes out of `exe` and its variants into `data` (kept alive for the
// write: a deque, so the bytes stay where they are) and places them in `section`, recording
// their offsets in the messages. With `placed` (a multi-target executable), bytes equal to bytes
// placed before (the weights two targets' variants share) get the earlier offset; a single
// executable's weights are not hashed for a match they cannot have.
void MoveConstantsToSection(proto::Executable* exe, std::deque<std::string>* data, DataSectionWriter* section,
                            absl::flat_hash_map<absl::string_view, uint64_t>* placed) {
  exe->clear_constant_offsets();
  for (int i = 0; i < exe->constants_size(); ++i) {
    data->emplace_back();
    data->back().swap(*exe->mutable_constants(i)->mutable_data());
    if (placed == nullptr) {
      exe->add_constant_offsets(section->Add(data->back()));
      continue;
    }
    auto [it, inserted] = placed->try_emplace(data->back(), 0);
    if (inserted) it->second = section->Add(data->back());
    exe->add_constant_offsets(it->second);
  }
  for (proto::Executable& variant : *exe->mutable_variants()) MoveConstantsToSection(&variant, data, section, placed);
}

// Fills the bytes of `exe`'s constants (and its variants') from the data section.
void FillConstants(proto::Executable* exe, absl::string_view constant_data) {
  for (int i = 0; i < exe->constants_size(); ++i) {
    proto::TensorProto* c = exe->mutable_constants(i);
    c->set_data(std::string(constant_data.substr(exe->constant_offsets(i), ConstantBytes(*c))));
  }
  exe->clear_constant_offsets();
  for (proto::Executable& variant : *exe->mutable_variants()) FillConstants(&variant, constant_data);
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
  for (int v = 0; v < exe.variants_size(); ++v) {
    if (absl::Status s = CheckConstantOffsets(exe.variants(v), constant_data); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("variant ", v, " ('", exe.variants(v).target(), "'): ", s.message()));
    }
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
  std::deque<std::string> data;
  DataSectionWriter section;
  absl::flat_hash_map<absl::string_view, uint64_t> placed;
  MoveConstantsToSection(&exe, &data, &section, exe.variants_size() > 0 ? &placed : nullptr);
  return section.Serialize(kExecutableMagic, kExecutableFormatVersion, exe.SerializeAsString(), signer);
}

absl::Status WriteExecutable(const std::string& path, proto::Executable exe, const SigningKey* signer) {
  std::deque<std::string> data;
  DataSectionWriter section;
  absl::flat_hash_map<absl::string_view, uint64_t> placed;
  MoveConstantsToSection(&exe, &data, &section, exe.variants_size() > 0 ? &placed : nullptr);
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
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(parts->message.data()),
                                            static_cast<int>(parts->message.size()));
  in.SetRecursionLimit(kMaxMessageDepth);
  if (!out.exe.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) {
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
  FillConstants(&sections->exe, sections->constant_data);
  return std::move(sections->exe);
}

}  // namespace vm
}  // namespace mlc
