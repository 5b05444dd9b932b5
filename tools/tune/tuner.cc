/*! \file tuner.cc */
#include "tools/tune/tuner.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <numeric>
#include <ostream>
#include <random>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "ir/tir/stmt_tree.h"
#include "passes/constant_packing.h"
#include "passes/pass.h"
#include "passes/schedule/rules/rules.h"
#include "tools/tune/apply_rules.h"
#include "tools/tune/cost_model.h"
#include "tools/tune/measure.h"

namespace mlc {
namespace tune {
namespace {

/*! \brief One point of a task's search space: a choice for each of its knobs. */
using Candidate = std::vector<size_t>;

struct Task {
  std::string name;
  tir::PrimFunc raw, simplified;
  std::string workload;
  int weight = 0;
  /*! \brief The decisions the rules ask for when they schedule the function (knob.h), in the
   *  order they ask; the tuner knows them only by their choices. */
  std::vector<tir::Knob> knobs;
  /*! \brief Each knob's choices as key=value settings, parsed from their descriptions once:
   *  settings[k][c] for choice c of knob k ("mr" -> "6"). */
  std::vector<std::vector<std::map<std::string, std::string>>> settings;
  std::vector<Candidate> space;
  KernelArguments args;
  /*! \brief The parameters the model passes a constant for in every call: pack-constants
   *  packs them at compile time, so their packing copies are not timed. */
  std::set<int> constant_params;
  std::vector<std::string> reference;
  // Measured so far: index into space -> seconds (failed candidates: negative).
  std::map<size_t, double> measured;
  std::map<size_t, tir::Trace> traces;
  size_t default_index = 0;
  int budget = 0, failed = 0, packed_ahead = 0;
};

/*! \brief The task's function scheduled by the default rules with `c`'s choice for each knob
 *  (asked in the same order as when the knobs were found); an error when a knob's rule could
 *  not apply the choice. */
absl::StatusOr<Scheduled> ScheduleWith(const Task& task, const Candidate& c, const Target& target) {
  size_t asked = 0;
  bool mismatch = false;
  tir::Decider decide = [&](const tir::Knob& k) -> size_t {
    const size_t i = asked++;
    if (i >= task.knobs.size() || task.knobs[i].block != k.block || task.knobs[i].choices.size() != k.choices.size()) {
      mismatch = true;
      return k.default_choice;
    }
    return c[i];
  };
  std::vector<std::string> notes;
  Scheduled s = ApplyRules(task.name, task.simplified, target, decide, &notes);
  if (mismatch)
    return absl::InternalError(
        absl::StrCat("@", task.name, ": the rules asked for other knobs than when the task was made"));
  for (const std::string& n : notes) {
    for (const tir::Knob& k : task.knobs) {
      if (absl::StrContains(n, absl::StrCat("block ", k.block, ":"))) return absl::FailedPreconditionError(n);
    }
  }
  return s;
}

/*! \brief The cost model's features of a candidate: those of each knob's choice, in turn. */
std::vector<double> Features(const Task& task, const Candidate& c) {
  std::vector<double> f;
  for (size_t k = 0; k < task.knobs.size(); ++k) {
    const std::vector<double>& x = task.knobs[k].choices[c[k]].features;
    f.insert(f.end(), x.begin(), x.end());
  }
  return f;
}

/*! \brief What a candidate chooses, knob by knob ("mr=6 nr=16 ...; conv mr=7 nb=2"). */
std::string Describe(const Task& task, const Candidate& c) {
  std::vector<std::string> parts;
  for (size_t k = 0; k < task.knobs.size(); ++k) parts.push_back(task.knobs[k].choices[c[k]].description);
  return absl::StrJoin(parts, "; ");
}

/*! \brief The key=value settings of every choice of every knob (a description such as
 *  "mr=6 nb=2 groups=inside"; a token without '=' is not a setting). */
std::vector<std::vector<std::map<std::string, std::string>>> ChoiceSettings(const std::vector<tir::Knob>& knobs) {
  std::vector<std::vector<std::map<std::string, std::string>>> out;
  for (const tir::Knob& knob : knobs) {
    out.emplace_back();
    for (const tir::KnobChoice& choice : knob.choices) {
      std::map<std::string, std::string>& settings = out.back().emplace_back();
      for (absl::string_view token : absl::StrSplit(choice.description, ' ', absl::SkipEmpty())) {
        std::pair<std::string, std::string> kv = absl::StrSplit(token, absl::MaxSplits('=', 1));
        if (!kv.second.empty()) settings[kv.first] = kv.second;
      }
    }
  }
  return out;
}

/*! \brief The candidates of a task: every combination of its knobs' choices when there are at
 *  most kMaxSpace, else each knob's choices with the others at their defaults. */
constexpr size_t kMaxSpace = 4096;
std::vector<Candidate> SearchSpace(const std::vector<tir::Knob>& knobs) {
  Candidate defaults;
  size_t combinations = 1;
  for (const tir::Knob& k : knobs) {
    defaults.push_back(k.default_choice);
    combinations = std::min(kMaxSpace + 1, combinations * k.choices.size());
  }
  std::vector<Candidate> space;
  if (combinations <= kMaxSpace) {
    space.push_back(Candidate(knobs.size(), 0));
    for (size_t k = 0; k < knobs.size(); ++k) {
      std::vector<Candidate> grown;
      for (const Candidate& c : space) {
        for (size_t i = 0; i < knobs[k].choices.size(); ++i) {
          grown.push_back(c);
          grown.back()[k] = i;
        }
      }
      space = std::move(grown);
    }
    return space;
  }
  space.push_back(defaults);
  for (size_t k = 0; k < knobs.size(); ++k) {
    for (size_t i = 0; i < knobs[k].choices.size(); ++i) {
      if (i == knobs[k].default_choice) continue;
      space.push_back(defaults);
      space.back()[k] = i;
    }
  }
  return space;
}

/*! \brief The tasks of the module, by workload: each function the rules ask decisions of
 *  (found by scheduling it once with the defaults and recording the knobs asked). */
std::vector<Task> ExtractTasks(const IRModule& mod, const Target& target, uint64_t seed) {
  const std::map<std::string, std::set<int>> constant_params = passes::ConstantParameters(mod);
  std::map<std::string, size_t> by_workload;
  std::vector<Task> tasks;
  for (const auto& [name, f] : mod.functions()) {
    tir::PrimFunc prim = mod.LookupPrimFunc(name);
    if (!prim.defined() || tir::IsScheduled(prim)) continue;
    std::string key = tir::WorkloadKey(prim);
    if (auto it = by_workload.find(key); it != by_workload.end()) {
      ++tasks[it->second].weight;
      continue;
    }
    Task t;
    t.name = name;
    t.raw = prim;
    t.simplified = tir::SimplifiedForRules(prim);
    t.workload = key;
    t.weight = 1;
    tir::Decider record = [&](const tir::Knob& k) {
      t.knobs.push_back(k);
      return k.default_choice;
    };
    ApplyRules(name, t.simplified, target, record, nullptr);
    size_t choices = 1;
    for (const tir::Knob& k : t.knobs) choices *= k.choices.size();
    if (t.knobs.empty() || choices < 2) continue;
    t.settings = ChoiceSettings(t.knobs);
    t.space = SearchSpace(t.knobs);
    Candidate defaults;
    for (const tir::Knob& k : t.knobs) defaults.push_back(k.default_choice);
    t.default_index = std::find(t.space.begin(), t.space.end(), defaults) - t.space.begin();
    t.args = KernelArguments::For(prim, seed);
    if (auto it = constant_params.find(name); it != constant_params.end()) t.constant_params = it->second;
    by_workload[key] = tasks.size();
    tasks.push_back(std::move(t));
  }
  return tasks;
}

/*! \brief How many settings two candidates share, and how many either has (knob by knob:
 *  the settings of two choices of one knob). */
std::pair<int, int> Shared(const Task& task, const Candidate& a, const Candidate& b) {
  int shared = 0, keys = 0;
  for (size_t k = 0; k < task.knobs.size(); ++k) {
    const std::map<std::string, std::string>&x = task.settings[k][a[k]], &y = task.settings[k][b[k]];
    for (const auto& [key, value] : x) {
      auto it = y.find(key);
      shared += it != y.end() && it->second == value;
      ++keys;
    }
    for (const auto& [key, value] : y) keys += !x.count(key);
  }
  return {shared, keys};
}

/*! \brief The next candidate: among mutations of the best measured (one or two knobs changed)
 *  and random picks, the one the cost model predicts fastest (a random one a fifth of the
 *  time, and while the model has too few samples). */
std::optional<size_t> NextCandidate(const Task& task, std::mt19937_64* rng) {
  std::vector<size_t> unmeasured;
  for (size_t i = 0; i < task.space.size(); ++i) {
    if (!task.measured.count(i)) unmeasured.push_back(i);
  }
  if (unmeasured.empty()) return std::nullopt;
  std::vector<std::pair<double, size_t>> best;
  for (const auto& [i, s] : task.measured) {
    if (s > 0) best.emplace_back(s, i);
  }
  std::sort(best.begin(), best.end());
  std::set<size_t> pool;
  // Near a good one: all but two settings the same (all but one when there are only two).
  for (size_t p = 0; p < best.size() && p < 3; ++p) {
    for (size_t i : unmeasured) {
      auto [shared, keys] = Shared(task, task.space[i], task.space[best[p].second]);
      if (shared >= std::max(1, keys - 2)) pool.insert(i);
    }
  }
  for (int r = 0; r < 8; ++r) pool.insert(unmeasured[(*rng)() % unmeasured.size()]);
  std::vector<size_t> candidates(pool.begin(), pool.end());
  CostModel model;
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (const auto& [i, s] : task.measured) {
    if (s <= 0) continue;
    x.push_back(Features(task, task.space[i]));
    y.push_back(s);
  }
  model.Fit(x, y);
  if (!model.trained() || (*rng)() % 5 == 0) return candidates[(*rng)() % candidates.size()];
  size_t pick = candidates.front();
  double score = 1e300;
  for (size_t i : candidates) {
    double p = model.Predict(Features(task, task.space[i]));
    if (p < score) {
      score = p;
      pick = i;
    }
  }
  return pick;
}

/*! \brief Measures `func`, a schedule of `task`, as the build will run it: the copies that pack
 *  an operand the model passes as a constant run once before the timed calls, as pack-constants
 *  runs them at compile time. Timed with the copies, a candidate's cost was mostly repacking
 *  its weights (an MLP layer of batch 64: 88 us against 57 in the model), and the tuner chose
 *  the tiles that packed fastest rather than those that ran fastest. */
absl::StatusOr<Measurement> MeasureAsBuilt(Task* task, const tir::PrimFunc& func, const Target& target) {
  std::vector<passes::ConstantPacking> packings;
  for (const passes::ConstantPacking& p : passes::FindConstantPackings(func)) {
    if (task->constant_params.count(p.param)) packings.push_back(p);
  }
  if (packings.empty()) return Measure(func, task->name, target, &task->args, &task->reference);
  task->packed_ahead = std::max<int>(task->packed_ahead, packings.size());
  KernelArguments args = task->args;
  for (const passes::ConstantPacking& p : packings) {
    std::vector<int64_t> shape;
    for (const tir::PrimExpr& d : func->params[p.param]->shape) shape.push_back(*tir::AsConstInt(d));
    absl::StatusOr<TensorData> packed = passes::PackConstant(p, func, task->args.Tensor(p.param, shape));
    if (!packed.ok()) return packed.status();
    args = args.With(p.param, *packed);
  }
  return Measure(passes::WithoutPackings(func, packings), task->name, target, &args, &task->reference);
}

}  // namespace

absl::StatusOr<TuneRun> TuneModule(const IRModule& mod, const TuneOptions& options, tir::TuningDatabase* db) {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  auto log = [&](const std::string& line) {
    if (options.log != nullptr) *options.log << line << std::endl;
  };
  std::mt19937_64 rng(options.seed);
  std::vector<Task> tasks = ExtractTasks(mod, options.target, options.seed);
  if (options.num_shards < 1 || options.shard < 0 || options.shard >= options.num_shards) {
    return absl::InvalidArgumentError(
        absl::StrCat("shard ", options.shard, " of ", options.num_shards, " does not exist"));
  }
  if (options.num_shards > 1) {
    std::vector<Task> mine;
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (static_cast<int>(i % options.num_shards) == options.shard) mine.push_back(std::move(tasks[i]));
    }
    tasks = std::move(mine);
  }
  log(absl::StrCat("tune: ", tasks.size(), " tasks on ", options.target.str()));
  // Each task: the reference (unscheduled) and the default rules' schedule first.
  auto measure = [&](Task* task, size_t index) {
    absl::StatusOr<Scheduled> s = ScheduleWith(*task, task->space[index], options.target);
    absl::StatusOr<Measurement> m =
        s.ok() ? MeasureAsBuilt(task, s->func, options.target) : absl::StatusOr<Measurement>(s.status());
    if (!m.ok()) {
      task->measured[index] = -1;
      ++task->failed;
      return;
    }
    task->measured[index] = m->seconds;
    task->traces[index] = s->trace;
  };
  for (size_t t = 0; t < tasks.size(); ++t) {
    Task& task = tasks[t];
    // The unscheduled kernel is run once for the reference, not timed (it can take seconds).
    absl::StatusOr<Measurement> ref =
        Measure(task.raw, task.name, options.target, &task.args, &task.reference, /*repeats=*/0);
    if (!ref.ok())
      return absl::Status(ref.status().code(),
                          absl::StrCat("tune: the unscheduled @", task.name, ": ", ref.status().message()));
    measure(&task, task.default_index);
    double d = task.measured[task.default_index];
    log(absl::StrFormat("tune: [%d/%d] %s (x%d, %d candidates): default %.3f ms", t + 1, tasks.size(), task.name,
                        task.weight, task.space.size(), d * 1e3));
  }
  // The remaining trials by each task's share of the model's time under the default rules.
  int total = options.trials > 0 ? options.trials : 16 * static_cast<int>(tasks.size());
  int remaining = std::max(0, total - static_cast<int>(tasks.size()));
  double weight_sum = 0;
  for (const Task& t : tasks) weight_sum += t.weight * std::max(t.measured.at(t.default_index), 0.0);
  for (Task& t : tasks) {
    double share = weight_sum > 0 ? t.weight * std::max(t.measured.at(t.default_index), 0.0) / weight_sum : 0;
    t.budget = std::min<int>(static_cast<int>(t.space.size()) - 1, static_cast<int>(remaining * share + 0.5));
  }
  std::vector<TaskReport> reports;
  for (size_t t = 0; t < tasks.size(); ++t) {
    Task& task = tasks[t];
    for (int trial = 0; trial < task.budget; ++trial) {
      if (options.time_budget > 0 && elapsed() > options.time_budget) break;
      std::optional<size_t> next = NextCandidate(task, &rng);
      if (!next) break;
      measure(&task, *next);
    }
    // The best measured candidate, confirmed against the default by measuring both again,
    // in turns, five times each: a winner by noise alone (or by a slow first measurement of
    // the default, taken when the task's data was cold) would make the model slower. Only the
    // new measurements count: the best must beat the default by 3% in their medians and in
    // four of the five rounds. With three rounds and the medians alone, MLP batch 64's one
    // kernel took a record "1.11x faster" on a Zen 4 whose default had measured 0.059 ms and
    // then 0.084 ms in the same run, and the tuned model ran 8% slower in the benchmark.
    size_t best = task.default_index;
    for (const auto& [i, s] : task.measured) {
      if (s > 0 && (task.measured[best] <= 0 || s < task.measured[best])) best = i;
    }
    if (best != task.default_index && task.measured[task.default_index] > 0) {
      constexpr int kRounds = 5, kRoundsToWin = 4;
      std::vector<double> b, d;
      int won = 0;
      for (int round = 0; round < kRounds; ++round) {
        measure(&task, best);
        b.push_back(task.measured[best]);
        measure(&task, task.default_index);
        d.push_back(task.measured[task.default_index]);
        won += b.back() > 0 && b.back() < d.back();
      }
      std::sort(b.begin(), b.end());
      std::sort(d.begin(), d.end());
      task.measured[best] = b[kRounds / 2];
      task.measured[task.default_index] = d[kRounds / 2];
      if (!(b[kRounds / 2] > 0 && b[kRounds / 2] < 0.97 * d[kRounds / 2] && won >= kRoundsToWin))
        best = task.default_index;
    }
    TaskReport r;
    r.name = task.name;
    r.workload = task.workload;
    r.weight = task.weight;
    r.trials = static_cast<int>(task.measured.size());
    r.failed = task.failed;
    r.packed_ahead = task.packed_ahead;
    r.default_seconds = task.measured[task.default_index];
    r.best_seconds = task.measured[best];
    r.choice = Describe(task, task.space[best]);
    for (const auto& [i, seconds] : task.measured) {
      CandidateReport c{Describe(task, task.space[i]), {}, seconds, i == task.default_index};
      for (size_t k = 0; k < task.knobs.size(); ++k) {
        const std::vector<double>& f = task.knobs[k].choices[task.space[i][k]].features;
        c.features.insert(c.features.end(), f.begin(), f.end());
      }
      r.candidates.push_back(std::move(c));
    }
    log(absl::StrFormat("tune: [%d/%d] %s: %d trials (%d failed), best %.3f ms (%s), default %.3f ms, %.2fx%s", t + 1,
                        tasks.size(), task.name, r.trials, r.failed, r.best_seconds * 1e3, r.choice,
                        r.default_seconds * 1e3, r.best_seconds > 0 ? r.default_seconds / r.best_seconds : 0.0,
                        r.packed_ahead > 0 ? absl::StrCat("; constant operands packed ahead: ", r.packed_ahead) : ""));
    if (r.best_seconds > 0) {
      tir::TuningRecord record;
      record.workload = task.workload;
      record.target = options.target.str();
      record.trace = task.traces[best];
      record.func_name = task.name;
      record.seconds = r.best_seconds;
      record.choice = r.choice;
      record.default_seconds = r.default_seconds;
      db->Add(std::move(record));
    }
    reports.push_back(r);
  }
  TuneRun run;
  if (options.model_pipeline.empty()) {
    run.model.skipped = "not asked for";
  } else if (options.num_shards > 1) {
    run.model.skipped = "a shard's records (the model needs every task's)";
  } else {
    absl::StatusOr<ModelCheck> check =
        CheckRecordsInModel(mod, options.model_pipeline, options.target, db, options.log);
    if (!check.ok())
      return absl::Status(check.status().code(),
                          absl::StrCat("tune: confirming the records in the model: ", check.status().message()));
    run.model = *std::move(check);
  }
  for (const RecordInModel& m : run.model.records) {
    if (m.kept) continue;
    for (TaskReport& r : reports) {
      if (r.workload != m.workload) continue;
      r.lost_in_model = true;
      r.best_seconds = r.default_seconds;
      r.choice = db->Find(m.workload, options.target.str())->choice;
    }
  }
  run.reports = std::move(reports);
  run.records = db->size();
  return run;
}

absl::StatusOr<TuneRun> TuneToDatabase(IRModule mod, const std::string& target_flag, const std::string& pipeline,
                                       TuneOptions options, const std::string& db_path) {
  if (absl::Status s = RecordTargetFlag(&mod.mutable_attrs(), target_flag); !s.ok()) return s;
  absl::StatusOr<Target> target = TargetFromAttrs(mod.attrs());
  if (!target.ok()) return target.status();
  if (absl::Status s = RecordTarget(&mod.mutable_attrs(), *target); !s.ok()) return s;
  // The kernels as the build would schedule them.
  absl::StatusOr<std::vector<std::unique_ptr<passes::Pass>>> passes = passes::PipelineBeforeScheduling(pipeline);
  if (!passes.ok()) return absl::InvalidArgumentError(absl::StrCat("passes: ", passes.status().message()));
  absl::StatusOr<IRModule> prepared = passes::RunPipeline(mod, *passes, {});
  if (!prepared.ok()) return prepared.status();
  tir::TuningDatabase db;
  if (std::filesystem::exists(db_path)) {
    absl::StatusOr<tir::TuningDatabase> old = tir::TuningDatabase::Load(db_path);
    if (!old.ok()) return old.status();
    db = *std::move(old);
  }
  options.target = *target;
  options.model_pipeline = pipeline;
  absl::StatusOr<TuneRun> run = TuneModule(*prepared, options, &db);
  if (!run.ok()) return run.status();
  if (absl::Status s = db.Save(db_path); !s.ok()) return s;
  return run;
}

}  // namespace tune
}  // namespace mlc
