/*! \file knob.h
 *  \brief A decision a rule takes where it has alternatives (a register tile, a cache blocking),
 *         as MetaSchedule's sampling instructions are: the rule lists its choices, each with a
 *         description and features for a cost model, and marks its own pick as the default; a
 *         Decider (tuning) may take another. The choice taken is recorded in the schedule's
 *         trace as `sample_categorical`, so a replayed trace makes the same decision. Tuning
 *         searches knobs without knowing which rule declared them.
 */
#ifndef MLC_PASSES_SCHEDULE_RULES_KNOB_H_
#define MLC_PASSES_SCHEDULE_RULES_KNOB_H_

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "passes/schedule/schedule.h"

namespace mlc {
namespace tir {

struct KnobChoice {
  /*! \brief key=value pairs ("mr=6 nr=16 kc=256"): what the choice is, and how near two
   *  choices are (how many values they share). */
  std::string description;
  /*! \brief Numbers a cost model can learn the choice's time from (same length within a knob). */
  std::vector<double> features;
};

struct Knob {
  std::string func, block;  // where: the function and the block the rule schedules
  std::string rule;         // which decision: "GEMM tile", "direct convolution tile"
  std::vector<KnobChoice> choices;
  size_t default_choice = 0;  // the rule's own pick
};

/*! \brief Answers a knob with the index of a choice; an empty Decider takes the default. */
using Decider = std::function<size_t(const Knob&)>;

/*! \brief The decider's answer for `knob` (the default without one); an error when the answer
 *  is not one of its choices. */
absl::StatusOr<size_t> Decide(const Knob& knob, const Decider& decide);
/*! \brief Records the choice taken in `sch`'s trace, as sample_categorical over the choice
 *  indices with the choice as its decision (after the rule applied it: a rule whose schedule
 *  failed leaves nothing in the trace). */
absl::Status RecordDecision(Schedule* sch, const Knob& knob, size_t choice);

}  // namespace tir
}  // namespace mlc

#endif  // MLC_PASSES_SCHEDULE_RULES_KNOB_H_
