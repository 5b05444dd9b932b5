/*! \file tuning_database.cc */
#include "passes/schedule/tuning_database.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "ir/graph/structural_equal.h"
#include "passes/schedule/tuning_database.pb.h"
#include "support/file_util.h"
#include "support/sealed_file.h"

namespace mlc {
namespace tir {
namespace {}  // namespace

std::string WorkloadKey(const PrimFunc& func) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(StructuralHash(BaseFunc(func))));
  return hex;
}

absl::StatusOr<TuningDatabase> TuningDatabase::Load(const std::string& path) {
  absl::StatusOr<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) return bytes.status();
  absl::StatusOr<absl::string_view> payload = Unseal(*bytes, kTuningDatabaseKind, kTuningDatabaseFormatVersion, path);
  if (!payload.ok()) return payload.status();
  proto::TuningDatabaseProto p;
  if (!p.ParseFromArray(payload->data(), static_cast<int>(payload->size())))
    return absl::DataLossError(absl::StrCat(path, ": the tuning database message does not parse"));
  TuningDatabase db;
  for (int i = 0; i < p.records_size(); ++i) {
    const proto::TuningRecordProto& r = p.records(i);
    // A record whose trace does not read is dropped here with the reason; the rest stay usable.
    absl::StatusOr<Trace> trace = Trace::Deserialize(r.trace(), absl::StrCat(path, " record ", i));
    if (!trace.ok()) {
      std::fprintf(stderr, "warning: %s (record ignored)\n", std::string(trace.status().message()).c_str());
      continue;
    }
    TuningRecord record;
    record.workload = r.workload();
    record.target = r.target();
    record.trace = *trace;
    record.func_name = r.func_name();
    record.seconds = r.seconds();
    record.choice = r.choice();
    record.default_seconds = r.default_seconds();
    db.Add(std::move(record));
  }
  return db;
}

absl::Status TuningDatabase::Save(const std::string& path) const {
  proto::TuningDatabaseProto p;
  p.set_magic(kTuningDatabaseKind);
  p.set_format_version(kTuningDatabaseFormatVersion);
  for (const auto& [key, r] : records_) {
    proto::TuningRecordProto* out = p.add_records();
    out->set_workload(r.workload);
    out->set_target(r.target);
    out->set_trace(r.trace.Serialize());
    out->set_func_name(r.func_name);
    out->set_seconds(r.seconds);
    out->set_choice(r.choice);
    out->set_default_seconds(r.default_seconds);
  }
  return WriteFileAtomically(path, Seal(kTuningDatabaseKind, kTuningDatabaseFormatVersion, p.SerializeAsString()));
}

void TuningDatabase::Add(TuningRecord record) {
  auto key = std::make_pair(record.workload, record.target);
  auto it = records_.find(key);
  if (it == records_.end() || record.seconds < it->second.seconds) records_[key] = std::move(record);
}

void TuningDatabase::Replace(TuningRecord record) {
  auto key = std::make_pair(record.workload, record.target);
  records_[key] = std::move(record);
}

void TuningDatabase::Merge(const TuningDatabase& other) {
  for (const auto& [key, r] : other.records_) Add(r);
}

const TuningRecord* TuningDatabase::Find(const std::string& workload, const std::string& target) const {
  auto it = records_.find({workload, target});
  return it == records_.end() ? nullptr : &it->second;
}

std::vector<std::string> TuningDatabase::TargetsOf(const std::string& workload) const {
  std::vector<std::string> out;
  for (const auto& [key, r] : records_) {
    if (key.first == workload) out.push_back(key.second);
  }
  return out;
}

std::vector<const TuningRecord*> TuningDatabase::records() const {
  std::vector<const TuningRecord*> out;
  for (const auto& [key, r] : records_) out.push_back(&r);
  return out;
}

}  // namespace tir
}  // namespace mlc
