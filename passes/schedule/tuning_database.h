/*! \file tuning_database.h
 *  \brief The tuning database: for each workload (a PrimFunc, by structural hash) and target,
 *         the best schedule trace measured and its time. Written by //tools:tune, read by the
 *         apply-tuning-records pass; databases from several runs or machines merge, keeping the
 *         fastest record per (workload, target).
 */
#ifndef MLC_PASSES_SCHEDULE_TUNING_DATABASE_H_
#define MLC_PASSES_SCHEDULE_TUNING_DATABASE_H_

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/tir/prim_func.h"
#include "passes/schedule/trace.h"

namespace mlc {
namespace tir {

struct TuningRecord {
  std::string workload;
  std::string target;
  Trace trace;
  std::string func_name;
  double seconds = 0;
  std::string choice;
  double default_seconds = 0;
};

/*! \brief The database file's kind and version (support/sealed_file.h). 2: sealed. */
inline constexpr char kTuningDatabaseKind[] = "mlc.tuning";
inline constexpr uint32_t kTuningDatabaseFormatVersion = 2;

/*! \brief The key of a PrimFunc in the database: its structural hash (names do not matter). */
std::string WorkloadKey(const PrimFunc& func);

class TuningDatabase {
 public:
  /*! \brief Reads a database file; a damaged or foreign file is an error naming it. */
  static absl::StatusOr<TuningDatabase> Load(const std::string& path);
  /*! \brief Writes it atomically. */
  absl::Status Save(const std::string& path) const;

  /*! \brief Keeps `record` if it is the first or the fastest for its workload and target. */
  void Add(TuningRecord record);
  /*! \brief Keeps `record` in place of any for its workload and target, faster or not: what the
   *  tuner does when a record that won timed alone loses in the model (tools/tune/model_check.h). */
  void Replace(TuningRecord record);
  void Merge(const TuningDatabase& other);

  /*! \brief The record for the workload on this target, if any. */
  const TuningRecord* Find(const std::string& workload, const std::string& target) const;
  /*! \brief The targets that have a record for the workload (for "recorded for another target"). */
  std::vector<std::string> TargetsOf(const std::string& workload) const;
  size_t size() const { return records_.size(); }
  std::vector<const TuningRecord*> records() const;

 private:
  std::map<std::pair<std::string, std::string>, TuningRecord> records_;
};

}  // namespace tir
}  // namespace mlc

#endif  // MLC_PASSES_SCHEDULE_TUNING_DATABASE_H_
