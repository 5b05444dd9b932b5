/*! \file default_schedule.cc
 *  \brief default-schedule: the rules of passes/schedule/rules on every PrimFunc, so the default
 *         pipeline generates fast code without tuning.
 */
#include <iostream>

#include "absl/strings/str_cat.h"
#include "ir/target/target.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/stmt_tree.h"
#include "passes/pass.h"
#include "passes/schedule/rules/rules.h"
#include "passes/schedule/schedule.h"

namespace mlc {
namespace passes {
namespace {

class DefaultSchedulePass : public Pass {
 public:
  std::string name() const override { return "default-schedule"; }
  std::string description() const override {
    return "Schedules every PrimFunc without tuning by the rules of DefaultScheduleRules() "
           "(docs/schedule_rules.md: paddings, inlining, GEMM and direct-convolution register tiles, window and "
           "row reductions, vectorized and parallel loop nests). Functions with non-serial loops (already "
           "scheduled) are left alone. Tiles are sized for the module's target (its \"target\" attribute; the "
           "host where none). Run after fuse-tir.";
  }
  absl::StatusOr<IRModule> Run(const IRModule& mod) override {
    absl::StatusOr<Target> target_or = TargetFromAttrs(mod.attrs());
    if (!target_or.ok()) return target_or.status();
    const Target& target = *target_or;
    std::vector<std::string> notes;
    IRModule out = mod;  // functions no rule applied to stay as they were
    for (const auto& [name, f] : mod.functions()) {
      tir::PrimFunc prim = mod.LookupPrimFunc(name);
      if (!prim.defined() || tir::IsScheduled(prim)) continue;
      // One schedule per function: rules copy the schedule to try an alternative, and a
      // schedule over the whole module would copy every other function's trace each time.
      IRModule single;
      single.mutable_attrs() = mod.attrs();
      single.Add(name, tir::SimplifiedForRules(prim));
      tir::Schedule sch(single);
      if (tir::ApplyDefaultSchedule(&sch, name, target, *explain_ ? &notes : nullptr) > 0) {
        out.Add(name, sch.mod().LookupPrimFunc(name));
      }
    }
    for (const std::string& n : notes) std::cerr << "default-schedule: " << n << "\n";
    return out;
  }

 private:
  Option<bool> explain_{this, "explain", false, "print (to stderr) why a rule that matched a block could not apply"};
};

MLC_REGISTER_PASS(DefaultSchedulePass);

}  // namespace
}  // namespace passes
}  // namespace mlc
