/*! \file temporary_database.h
 *  \brief A tuning database saved to a file of its own for apply-tuning-records (which reads it
 *         when the pipeline runs), removed when the object goes.
 */
#ifndef MLC_TOOLS_TUNE_TEMPORARY_DATABASE_H_
#define MLC_TOOLS_TUNE_TEMPORARY_DATABASE_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "passes/schedule/tuning_database.h"

namespace mlc {
namespace tune {

class TemporaryDatabase {
 public:
  /*! \brief `db` saved under $TMPDIR (or /tmp) as mlc_<pid>_<n>.tuning.pb. */
  static absl::StatusOr<std::unique_ptr<TemporaryDatabase>> Save(const tir::TuningDatabase& db);
  ~TemporaryDatabase();
  TemporaryDatabase(const TemporaryDatabase&) = delete;
  TemporaryDatabase& operator=(const TemporaryDatabase&) = delete;
  const std::string& path() const { return path_; }

 private:
  explicit TemporaryDatabase(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

}  // namespace tune
}  // namespace mlc

#endif  // MLC_TOOLS_TUNE_TEMPORARY_DATABASE_H_
