/*! \file apply_tuning_records.cc
 *  \brief apply-tuning-records{db=...}: schedules each PrimFunc that the tuning database has a
 *         record for (same workload, same target) with the record's trace; default-schedule then
 *         leaves those functions alone and schedules the rest with its rules.
 *
 *  A record for another target, or one whose trace no longer applies (the operator library
 *  changed the function's blocks), is ignored with a warning on stderr: the function falls
 *  back to the default rules, never to a half-applied schedule.
 */
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/target/target.h"
#include "passes/pass.h"
#include "passes/schedule/rules/rules.h"
#include "passes/schedule/schedule.h"
#include "passes/schedule/tuning_database.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief The trace with its get_block calls addressed to `func` instead of `recorded`. */
tir::Trace Readdressed(const tir::Trace& trace, const std::string& recorded, const std::string& func) {
  tir::Trace out;
  for (tir::Instruction inst : trace.instructions()) {
    if (inst.kind == "get_block" && inst.inputs.size() >= 2 && inst.inputs[1].s == recorded) inst.inputs[1].s = func;
    out.Append(std::move(inst));
  }
  return out;
}

class ApplyTuningRecordsPass : public Pass {
 public:
  std::string name() const override { return "apply-tuning-records"; }
  std::string description() const override {
    return "Schedules every PrimFunc that the tuning database (from //tools:tune) has a record for, on the module's "
           "target, with the record's trace; records for other targets or that no longer apply are ignored with a "
           "warning. Run before default-schedule, which then schedules the rest.";
  }
  absl::StatusOr<IRModule> Run(const IRModule& mod) override {
    if (db_->empty()) return absl::InvalidArgumentError("apply-tuning-records: give the database as db=PATH");
    absl::StatusOr<tir::TuningDatabase> db = tir::TuningDatabase::Load(*db_);
    if (!db.ok()) return db.status();
    absl::StatusOr<Target> target = TargetFromAttrs(mod.attrs());
    if (!target.ok()) return target.status();
    IRModule out = mod;
    for (const auto& [name, f] : mod.functions()) {
      tir::PrimFunc prim = mod.LookupPrimFunc(name);
      if (!prim.defined() || tir::IsScheduled(prim)) continue;
      std::string key = tir::WorkloadKey(prim);
      const tir::TuningRecord* record = db->Find(key, target->str());
      if (record == nullptr) {
        std::vector<std::string> others = db->TargetsOf(key);
        if (!others.empty()) {
          std::cerr << "apply-tuning-records: warning: @" << name << " has records only for target(s) "
                    << absl::StrJoin(others, ", ") << ", not " << target->str() << ": ignored\n";
        }
        continue;
      }
      IRModule one;
      one.Add(name, tir::SimplifiedForRules(prim));
      tir::Schedule sch(one);
      if (absl::Status s = tir::ApplyTrace(Readdressed(record->trace, record->func_name, name), &sch); !s.ok()) {
        std::cerr << "apply-tuning-records: warning: the record for @" << name << " (workload " << key
                  << ") does not apply: " << s.message() << "; the default rules schedule it\n";
        continue;
      }
      out.Add(name, sch.mod().LookupPrimFunc(name));
    }
    return out;
  }

 private:
  Option<std::string> db_{this, "db", "", "the tuning database file (written by //tools:tune)"};
};

MLC_REGISTER_PASS(ApplyTuningRecordsPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
