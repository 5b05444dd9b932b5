/*! \file apply_rules.cc */
#include "tools/tune/apply_rules.h"

#include "ir/graph/module.h"
#include "passes/schedule/rules/rules.h"
#include "passes/schedule/schedule.h"

namespace mlc {
namespace tune {

Scheduled ApplyRules(const std::string& name, const tir::PrimFunc& func, const Target& target,
                     const tir::Decider& decide, std::vector<std::string>* notes) {
  IRModule one;
  one.Add(name, func);
  tir::Schedule sch(one);
  tir::ApplyDefaultSchedule(&sch, name, target, notes, decide);
  return Scheduled{sch.mod().LookupPrimFunc(name), sch.trace()};
}

}  // namespace tune
}  // namespace mlc
