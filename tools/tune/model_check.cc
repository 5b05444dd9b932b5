/*! \file model_check.cc */
#include "tools/tune/model_check.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <ostream>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "codegen/build.h"
#include "passes/pass.h"
#include "passes/schedule/rules/rules.h"
#include "tools/tune/apply_rules.h"
#include "tools/tune/temporary_database.h"
#include "vm/profiler.h"
#include "vm/virtual_machine.h"

namespace mlc {
namespace tune {
namespace {

/*! \brief Rounds of the two builds in turns; a record must win in more than half of them. */
constexpr int kRounds = 5;
/*! \brief Each round runs each build for at least this long (and at least twice). */
constexpr double kMinBlockSeconds = 0.1;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/*! \brief The default rules' schedule of `func` under the name `name` (the trace addressed to
 *  it) and their choices, as the tuner describes a candidate ("; " between knobs). */
struct DefaultSchedule {
  tir::Trace trace;
  std::string choice;
};
DefaultSchedule ScheduleByDefault(const std::string& name, const tir::PrimFunc& func, const Target& target) {
  std::vector<std::string> choices;
  tir::Decider record = [&](const tir::Knob& k) {
    choices.push_back(k.choices[k.default_choice].description);
    return k.default_choice;
  };
  Scheduled s = ApplyRules(name, tir::SimplifiedForRules(func), target, record, nullptr);
  return {s.trace, absl::StrJoin(choices, "; ")};
}

/*! \brief Seeded arguments for `main`: floats in [-1, 1), integers and booleans zero (valid
 *  indices and masks). An error names a parameter the model cannot be run with. */
absl::StatusOr<std::vector<vm::Value>> MainArguments(const IRModule& mod) {
  relax::Function main = mod.LookupFunction("main");
  if (!main.defined()) return absl::FailedPreconditionError("the module has no main");
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> uniform(-1, 1);
  std::vector<vm::Value> args;
  for (const relax::Var& p : main->params) {
    const auto* t = p->struct_info().as<relax::TensorStructInfoNode>();
    if (t == nullptr || !t->shape || t->dtype.is_void())
      return absl::FailedPreconditionError(
          absl::StrCat("main's parameter ", p->name_hint, " is not a tensor of static shape"));
    vm::NDArray a =
        vm::NDArray::Empty(*t->shape, DLDataType{t->dtype.code(), static_cast<uint8_t>(t->dtype.bits()), 1});
    int64_t n = 1;
    for (int64_t d : *t->shape) n *= d;
    if (t->dtype == DataType::Float32()) {
      float* f = static_cast<float*>(a.data());
      for (int64_t i = 0; i < n; ++i) f[i] = uniform(rng);
    } else if (n > 0) {
      std::fill_n(static_cast<char*>(a.data()), n * t->dtype.bytes(), 0);
    }
    args.push_back(vm::Value(a));
  }
  return args;
}

/*! \brief The rest of `pipeline` on `prepared` (with apply-tuning-records first when `db_path`
 *  is given), built and loaded; it chooses its threads by timing, as vm/run and the Python
 *  module run a model. */
absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> BuildModel(const IRModule& prepared, const std::string& pipeline,
                                                               const std::string& db_path) {
  absl::StatusOr<std::vector<std::unique_ptr<passes::Pass>>> rest = passes::PipelineFromScheduling(pipeline);
  if (!rest.ok()) return rest.status();
  if (!db_path.empty()) {
    if (absl::Status s = passes::InsertTuningRecords(&*rest, db_path); !s.ok()) return s;
  }
  absl::StatusOr<IRModule> mod = passes::RunPipeline(prepared, *rest);
  if (!mod.ok()) return mod.status();
  absl::StatusOr<proto::Executable> exe = codegen::Build(*mod);
  if (!exe.ok()) return exe.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> machine = vm::VirtualMachine::Load(*std::move(exe));
  if (!machine.ok()) return machine.status();
  (*machine)->ChooseThreadsByTiming(true);
  return machine;
}

/*! \brief One build of the model, run in blocks. */
class ModelRunner {
 public:
  ModelRunner(std::unique_ptr<vm::VirtualMachine> machine, const std::vector<vm::Value>* args)
      : vm_(std::move(machine)), args_(args) {}

  /*! \brief Runs until the thread choice has probed both ways and at least twice more, and
   *  learns how many calls fill a block. */
  absl::Status WarmUp() {
    for (int i = 0; i < 64; ++i) {
      if (absl::Status s = Call(); !s.ok()) return s;
      const vm::ThreadChoice* choice = vm_->thread_choice("main");
      if (i >= 2 && (choice == nullptr || !choice->probing())) break;
    }
    double one = 0;
    for (int i = 0; i < 2; ++i) {
      auto t = std::chrono::steady_clock::now();
      if (absl::Status s = Call(); !s.ok()) return s;
      one = std::max(one, std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
    }
    per_block_ = std::max<int64_t>(2, static_cast<int64_t>(kMinBlockSeconds / std::max(one, 1e-7)) + 1);
    return absl::OkStatus();
  }

  struct Block {
    double seconds = 0;                     // per call of main
    std::map<std::string, double> kernels;  // per call, by kernel name (profiled blocks only)
  };
  absl::StatusOr<Block> Run(bool profile) {
    Block b;
    if (profile) vm_->EnableProfiling(true);
    auto start = std::chrono::steady_clock::now();
    for (int64_t i = 0; i < per_block_; ++i) {
      if (absl::Status s = Call(); !s.ok()) {
        if (profile) vm_->EnableProfiling(false);
        return s;
      }
    }
    b.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / per_block_;
    if (profile) {
      vm_->EnableProfiling(false);
      for (const vm::Profiler::Row& row : vm_->profiler()->Aggregate(per_block_).rows) {
        if (row.kind == "kernel") b.kernels[row.name] += row.seconds / per_block_;
      }
    }
    return b;
  }

 private:
  absl::Status Call() { return vm_->Invoke("main", *args_).status(); }
  std::unique_ptr<vm::VirtualMachine> vm_;
  const std::vector<vm::Value>* args_;
  int64_t per_block_ = 2;
};

/*! \brief The default build and a tuned one timed in turns, `kRounds` rounds. */
struct Rounds {
  std::vector<ModelRunner::Block> without, with;
};
absl::StatusOr<Rounds> RunInTurns(ModelRunner* without, ModelRunner* with, bool profile) {
  Rounds r;
  for (int round = 0; round < kRounds; ++round) {
    absl::StatusOr<ModelRunner::Block> a = without->Run(profile);
    if (!a.ok()) return a.status();
    absl::StatusOr<ModelRunner::Block> b = with->Run(profile);
    if (!b.ok()) return b.status();
    r.without.push_back(*std::move(a));
    r.with.push_back(*std::move(b));
  }
  return r;
}

}  // namespace

absl::StatusOr<ModelCheck> CheckRecordsInModel(const IRModule& prepared, const std::string& pipeline,
                                               const Target& target, tir::TuningDatabase* db, std::ostream* log) {
  auto say = [&](const std::string& line) {
    if (log != nullptr) *log << "tune: in the model: " << line << std::endl;
  };
  ModelCheck check;
  // The records that schedule a workload of the model otherwise than the default rules, and
  // every function of each workload (their kernels' times in the profile).
  std::map<std::string, std::vector<std::string>> functions;  // workload -> names
  std::map<std::string, DefaultSchedule> defaults;            // workload -> the default, addressed as the record
  for (const auto& [name, f] : prepared.functions()) {
    tir::PrimFunc prim = prepared.LookupPrimFunc(name);
    if (!prim.defined() || tir::IsScheduled(prim)) continue;
    std::string key = tir::WorkloadKey(prim);
    functions[key].push_back(name);
    if (functions[key].size() > 1) continue;
    const tir::TuningRecord* record = db->Find(key, target.str());
    if (record == nullptr) continue;
    DefaultSchedule d = ScheduleByDefault(record->func_name, prim, target);
    if (d.trace.Serialize() == record->trace.Serialize()) continue;
    check.records.push_back(RecordInModel{name, key, record->choice});
    defaults[key] = std::move(d);
  }
  if (check.records.empty()) {
    check.skipped = "no record schedules a kernel otherwise than the default rules";
    return check;
  }
  absl::StatusOr<std::vector<vm::Value>> args = MainArguments(prepared);
  if (!args.ok()) {
    check.skipped = std::string(args.status().message());
    say(absl::StrCat("not run (", check.skipped, "); the records stay as timed alone"));
    return check;
  }
  auto back_to_default = [&](RecordInModel* r) {
    const tir::TuningRecord* old = db->Find(r->workload, target.str());
    tir::TuningRecord d = *old;
    d.trace = defaults[r->workload].trace;
    d.choice = defaults[r->workload].choice;
    if (old->default_seconds > 0) d.seconds = old->default_seconds;
    db->Replace(std::move(d));
    r->kept = false;
  };

  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> plain = BuildModel(prepared, pipeline, "");
  if (!plain.ok()) return plain.status();
  absl::StatusOr<std::unique_ptr<TemporaryDatabase>> saved = TemporaryDatabase::Save(*db);
  if (!saved.ok()) return saved.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> tuned = BuildModel(prepared, pipeline, (*saved)->path());
  if (!tuned.ok()) return tuned.status();
  ModelRunner without(*std::move(plain), &*args), with(*std::move(tuned), &*args);
  if (absl::Status s = without.WarmUp(); !s.ok()) return s;
  if (absl::Status s = with.WarmUp(); !s.ok()) return s;
  absl::StatusOr<Rounds> profiled = RunInTurns(&without, &with, /*profile=*/true);
  if (!profiled.ok()) return profiled.status();
  check.rounds = kRounds;

  // Each record by its own kernels' time in the model.
  int dropped = 0;
  for (RecordInModel& r : check.records) {
    std::vector<double> a, b;
    bool found = false;
    for (int round = 0; round < kRounds; ++round) {
      double x = 0, y = 0;
      for (const std::string& name : functions[r.workload]) {
        auto ia = profiled->without[round].kernels.find(name);
        auto ib = profiled->with[round].kernels.find(name);
        if (ia == profiled->without[round].kernels.end() || ib == profiled->with[round].kernels.end()) continue;
        found = true;
        x += ia->second;
        y += ib->second;
      }
      a.push_back(x);
      b.push_back(y);
      r.rounds_won += y < x;
    }
    if (!found) {
      say(absl::StrCat("@", r.func, " (", r.choice, "): no kernel of it in the profile; the whole model judges it"));
      continue;
    }
    r.default_seconds = Median(a);
    r.tuned_seconds = Median(b);
    bool wins = r.tuned_seconds < r.default_seconds && 2 * r.rounds_won > kRounds;
    say(absl::StrFormat("@%s (%s): %.4f ms per call, %.4f without the record, faster in %d of %d rounds%s", r.func,
                        r.choice, r.tuned_seconds * 1e3, r.default_seconds * 1e3, r.rounds_won, kRounds,
                        wins ? "" : ": back to the default"));
    if (!wins) {
      back_to_default(&r);
      ++dropped;
    }
  }

  // The whole model with the records kept, against the default build.
  int kept = static_cast<int>(check.records.size()) - dropped;
  std::vector<double> a, b;
  int won = 0;
  if (kept > 0 && dropped > 0) {
    absl::StatusOr<std::unique_ptr<TemporaryDatabase>> fewer = TemporaryDatabase::Save(*db);
    if (!fewer.ok()) return fewer.status();
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> rebuilt = BuildModel(prepared, pipeline, (*fewer)->path());
    if (!rebuilt.ok()) return rebuilt.status();
    with = ModelRunner(*std::move(rebuilt), &*args);
    if (absl::Status s = with.WarmUp(); !s.ok()) return s;
    absl::StatusOr<Rounds> whole = RunInTurns(&without, &with, /*profile=*/false);
    if (!whole.ok()) return whole.status();
    profiled = std::move(whole);
  }
  for (int round = 0; round < kRounds; ++round) {
    a.push_back(profiled->without[round].seconds);
    b.push_back(profiled->with[round].seconds);
    won += b.back() < a.back();
  }
  check.default_seconds = Median(a);
  check.tuned_seconds = kept > 0 ? Median(b) : check.default_seconds;
  if (kept > 0) {
    bool wins = check.tuned_seconds < check.default_seconds && 2 * won > kRounds;
    say(absl::StrFormat("main: %.4f ms per call with %d record(s), %.4f without, faster in %d of %d rounds%s",
                        check.tuned_seconds * 1e3, kept, check.default_seconds * 1e3, won, kRounds,
                        wins ? "" : ": every record back to the default"));
    if (!wins) {
      for (RecordInModel& r : check.records) {
        if (r.kept) back_to_default(&r);
      }
      check.tuned_seconds = check.default_seconds;
    }
  }
  return check;
}

}  // namespace tune
}  // namespace mlc
