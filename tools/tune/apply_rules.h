/*! \file apply_rules.h
 *  \brief One PrimFunc scheduled by the default rules, each knob answered by a decider: how the
 *         tuner makes a candidate's schedule and the model check the default's.
 */
#ifndef MLC_TOOLS_TUNE_APPLY_RULES_H_
#define MLC_TOOLS_TUNE_APPLY_RULES_H_

#include <string>
#include <vector>

#include "ir/target/target.h"
#include "ir/tir/prim_func.h"
#include "passes/schedule/rules/knob.h"
#include "passes/schedule/trace.h"

namespace mlc {
namespace tune {

struct Scheduled {
  tir::PrimFunc func;
  tir::Trace trace;  // its get_block calls address the function as `name`
};

/*! \brief The default rules on `func` (as SimplifiedForRules gives it) under the name `name`,
 *  every knob answered by `decide`; `notes` (may be null) gets why a rule that matched a block
 *  did not apply. */
Scheduled ApplyRules(const std::string& name, const tir::PrimFunc& func, const Target& target,
                     const tir::Decider& decide, std::vector<std::string>* notes);

}  // namespace tune
}  // namespace mlc

#endif  // MLC_TOOLS_TUNE_APPLY_RULES_H_
