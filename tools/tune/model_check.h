/*! \file model_check.h
 *  \brief The tuner's last step: the records that change a schedule, confirmed in the model
 *         they were tuned for. Each task's winner was timed alone, warm, on the tuner's
 *         arguments; in the model its kernel reads what the kernel before it left in the caches,
 *         its weights come from beyond L2 once per inference, and the thread choice may run it
 *         on one thread. A record that won alone can lose there (MLP batch 64 on a Zen 5: tuned
 *         1.065x slower in the benchmark), so the model is built without the records and with
 *         them and both are run in turns, profiled: a record whose kernels are not faster in
 *         the model in their medians and in most rounds goes back to the default schedule; then
 *         the whole model with the records kept must be faster than without, or all of them go.
 */
#ifndef MLC_TOOLS_TUNE_MODEL_CHECK_H_
#define MLC_TOOLS_TUNE_MODEL_CHECK_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph/module.h"
#include "ir/target/target.h"
#include "passes/schedule/tuning_database.h"

namespace mlc {
namespace tune {

/*! \brief One record that schedules a workload of the model otherwise than the default rules. */
struct RecordInModel {
  std::string func;  // the first function of the model with the workload
  std::string workload;
  std::string choice;  // the record's
  /*! \brief The workload's kernels' time per model call, medians over the rounds (0: no
   *  kernel of it was found in the profile; the whole model's time judges it). */
  double default_seconds = 0, tuned_seconds = 0;
  int rounds_won = 0;
  bool kept = true;  // false: replaced by the default schedule's trace
};

struct ModelCheck {
  /*! \brief Why the model was not run (empty: it was): no record changes a schedule, main
   *  takes a tensor of symbolic shape... */
  std::string skipped;
  std::vector<RecordInModel> records;
  int rounds = 0;
  /*! \brief Per call of main, medians over the rounds: built without records, and with the
   *  records kept (equal to the default when none was). */
  double default_seconds = 0, tuned_seconds = 0;
};

/*! \brief Confirms `db`'s records for `target` in the model: `prepared` is the model as
 *  `pipeline`'s default-schedule receives it (PipelineBeforeScheduling); the rest of the
 *  pipeline builds it. Records that lose in the model are replaced in `db` by the default
 *  schedule's trace (TuningDatabase::Replace); progress goes to `log` (may be null). */
absl::StatusOr<ModelCheck> CheckRecordsInModel(const IRModule& prepared, const std::string& pipeline,
                                               const Target& target, tir::TuningDatabase* db, std::ostream* log);

}  // namespace tune
}  // namespace mlc

#endif  // MLC_TOOLS_TUNE_MODEL_CHECK_H_
