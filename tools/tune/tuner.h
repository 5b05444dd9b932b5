/*! \file tuner.h
 *  \brief Tuning: the distinct PrimFuncs of a module whose default rules ask for decisions
 *         (knobs: passes/schedule/rules/knob.h; tasks, deduplicated by structural hash,
 *         weighted by how often the model calls them) each get a search over their knobs'
 *         choices, without knowing which rule asks: an evolutionary search (mutations of the
 *         best measured, plus random picks) whose next candidate is the one a cost model
 *         trained on the measurements so far predicts fastest. Every candidate is compiled,
 *         checked against the unscheduled function and timed on this machine; the best trace
 *         of each task goes into the tuning database.
 */
#ifndef MLC_TOOLS_TUNE_TUNER_H_
#define MLC_TOOLS_TUNE_TUNER_H_

#include <iosfwd>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph/module.h"
#include "ir/target/target.h"
#include "passes/schedule/rules/rules.h"
#include "passes/schedule/tuning_database.h"
#include "tools/tune/model_check.h"

namespace mlc {
namespace tune {

struct TuneOptions {
  Target target;
  /*! \brief Measurements in all, across the tasks (0: 16 per task). Each task's default
   *  schedule is measured first; the rest go to the tasks by their share of the model's time. */
  int trials = 0;
  /*! \brief Stop searching after this many seconds (0: no limit). */
  double time_budget = 0;
  uint64_t seed = 1;
  /*! \brief Tune only the tasks whose index (in the module's function order) is `shard` modulo
   *  `num_shards`: how the tune_model Bazel rule spreads one model over several actions. */
  int shard = 0, num_shards = 1;
  /*! \brief The pipeline whose passes from default-schedule on build the model in which the
   *  records are confirmed (model_check.h); empty: they are kept as timed alone. A shard's
   *  records are not confirmed (the model needs every task's). */
  std::string model_pipeline = "default";
  std::ostream* log = nullptr;  // progress lines
};

/*! \brief One candidate the search measured: what to fit a cost model to. */
struct CandidateReport {
  std::string choice;            // the knobs' choices, as Describe gives them
  std::vector<double> features;  // every knob's choice features, in knob order (knob.h)
  double seconds = 0;            // the last measurement (negative: failed)
  bool is_default = false;       // the rules' own pick
};

struct TaskReport {
  std::string name;      // the first function with this workload
  std::string workload;  // WorkloadKey
  int weight = 0;        // functions with this workload
  int trials = 0;
  int failed = 0;  // candidates that did not apply or did not match the reference
  /*! \brief Operands the model passes as constants whose packing copies ran before the timed
   *  calls rather than in them (as pack-constants runs them at compile time). */
  int packed_ahead = 0;
  double default_seconds = 0;
  double best_seconds = 0;
  std::string choice;
  std::vector<CandidateReport> candidates;  // every candidate measured, in search order of index
  /*! \brief The best beat the default alone but not in the model: the default was recorded. */
  bool lost_in_model = false;
};

struct TuneRun {
  std::vector<TaskReport> reports;
  ModelCheck model;    // the records confirmed in the model
  size_t records = 0;  // in the database afterwards
};

/*! \brief Tunes every task of `mod` (a module as default-schedule receives it: after fuse-tir),
 *  adds the best record of each to `db`, then confirms the records in the model
 *  (`options.model_pipeline`). */
absl::StatusOr<TuneRun> TuneModule(const IRModule& mod, const TuneOptions& options, tir::TuningDatabase* db);

/*! \brief What //tools:tune and mlc.tune do: records `target_flag` in `mod` (empty: the
 *  module's, else this CPU), prepares it as `pipeline` would up to its default-schedule, tunes
 *  its tasks into the database at `db_path` (records already there are kept unless beaten) and
 *  saves it atomically. `options.target` is set from the module. */
absl::StatusOr<TuneRun> TuneToDatabase(IRModule mod, const std::string& target_flag, const std::string& pipeline,
                                       TuneOptions options, const std::string& db_path);

}  // namespace tune
}  // namespace mlc

#endif  // MLC_TOOLS_TUNE_TUNER_H_
