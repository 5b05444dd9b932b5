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
#include "passes/schedule/rules/rules.h"
#include "passes/schedule/schedule.h"
#include "ir/tir/stmt_tree.h"
#include "passes/pass.h"
#include "tools/tune/cost_model.h"
#include "tools/tune/measure.h"

namespace mlc {
namespace tune {
namespace {

/*! \brief One point of a task's search space: the tiles of its GEMM or of its direct
 *  convolution. */
struct Candidate {
  std::optional<tir::GemmTiles> gemm;
  std::optional<tir::DirectConvTiles> conv;
  bool operator==(const Candidate& o) const { return gemm == o.gemm && conv == o.conv; }
  /*! \brief The knobs, for telling near candidates from far ones. */
  std::vector<int64_t> Knobs() const {
    if (gemm) return {gemm->mr, gemm->nr, gemm->kc, gemm->nc, gemm->parallel_rows ? 1 : 0};
    return {conv->mr, conv->nb};
  }
};

struct Task {
  std::string name;
  tir::PrimFunc raw, simplified;
  std::string workload;
  int weight = 0;
  std::string block;  // the block whose tiles are searched
  std::optional<tir::GemmBlock> gemm;
  std::optional<tir::DirectConvBlock> conv;
  std::vector<Candidate> space;
  KernelArguments args;
  std::vector<std::string> reference;
  // Measured so far: index into space -> seconds (failed candidates: negative).
  std::map<size_t, double> measured;
  std::map<size_t, tir::Trace> traces;
  size_t default_index = 0;
  int budget = 0, failed = 0;
};

struct Scheduled {
  tir::PrimFunc func;
  tir::Trace trace;
};

/*! \brief The task's function scheduled by the default rules with `c`'s tiles for its block. */
absl::StatusOr<Scheduled> ScheduleWith(const Task& task, const Candidate& c, const Target& target) {
  IRModule one;
  one.Add(task.name, task.simplified);
  tir::Schedule sch(one);
  std::vector<std::string> notes;
  tir::TileChoosers choose;
  choose.gemm = [&](const tir::GemmBlock& g, const Target& t) -> std::optional<tir::GemmTiles> {
    if (g.name == task.block && c.gemm) return c.gemm;
    return tir::DefaultGemmTiles(g, t);
  };
  choose.conv = [&](const tir::DirectConvBlock& d, const Target& t) -> std::optional<tir::DirectConvTiles> {
    if (d.name == task.block && c.conv) return c.conv;
    return tir::DefaultDirectConvTiles(d, t);
  };
  tir::ApplyDefaultSchedule(&sch, task.name, target, &notes, choose);
  for (const std::string& n : notes) {
    if (absl::StrContains(n, absl::StrCat("block ", task.block, ":"))) return absl::FailedPreconditionError(n);
  }
  return Scheduled{sch.mod().LookupPrimFunc(task.name), sch.trace()};
}

std::vector<double> Features(const Task& task, const Candidate& c, const Target& target) {
  if (c.gemm) return TileFeatures(*task.gemm, *c.gemm, target);
  return TileFeatures(*task.conv, *c.conv, target);
}

/*! \brief The tasks of the module, by workload, with the block whose tiles are searched (a GEMM
 *  or a direct convolution) and its search space. */
std::vector<Task> ExtractTasks(const IRModule& mod, const Target& target, uint64_t seed) {
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
    IRModule one;
    one.Add(name, t.simplified);
    tir::Schedule probe(one);
    tir::InlineElementwise(&probe, name);
    for (const tir::BlockRealizeNode* r : tir::AllBlocks(probe.mod().LookupPrimFunc(name)->body)) {
      absl::StatusOr<tir::BlockRV> rv = probe.GetBlock(r->block->name, name);
      if (!rv.ok() || t.gemm || t.conv) continue;
      t.gemm = tir::MatchGemm(probe, *rv);
      if (!t.gemm) t.conv = tir::MatchDirectConv(probe, *rv);
    }
    std::optional<Candidate> d;
    if (t.gemm) {
      t.block = t.gemm->name;
      for (const tir::GemmTiles& g : tir::GemmTileCandidates(*t.gemm, target)) t.space.push_back({g, std::nullopt});
      if (std::optional<tir::GemmTiles> g = tir::DefaultGemmTiles(*t.gemm, target)) d = Candidate{g, std::nullopt};
    } else if (t.conv) {
      t.block = t.conv->name;
      for (const tir::DirectConvTiles& c : tir::DirectConvTileCandidates(*t.conv, target)) t.space.push_back({std::nullopt, c});
      if (std::optional<tir::DirectConvTiles> c = tir::DefaultDirectConvTiles(*t.conv, target)) d = Candidate{std::nullopt, c};
    }
    if (t.space.size() < 2 || !d) continue;
    auto it = std::find(t.space.begin(), t.space.end(), *d);
    if (it == t.space.end()) {
      t.space.push_back(*d);
      it = t.space.end() - 1;
    }
    t.default_index = it - t.space.begin();
    t.args = KernelArguments::For(prim, seed);
    by_workload[key] = tasks.size();
    tasks.push_back(std::move(t));
  }
  return tasks;
}

/*! \brief How many knobs two candidates share. */
int Shared(const Candidate& a, const Candidate& b) {
  std::vector<int64_t> x = a.Knobs(), y = b.Knobs();
  int n = 0;
  for (size_t i = 0; i < x.size() && i < y.size(); ++i) n += x[i] == y[i];
  return n;
}

/*! \brief The next candidate: among mutations of the best measured (one or two knobs changed)
 *  and random picks, the one the cost model predicts fastest (a random one a fifth of the
 *  time, and while the model has too few samples). */
std::optional<size_t> NextCandidate(const Task& task, const Target& target, std::mt19937_64* rng) {
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
  // Near a good one: all but two knobs the same (all but one when there are only two).
  const int near = std::max<int>(1, static_cast<int>(task.space.front().Knobs().size()) - 2);
  for (size_t p = 0; p < best.size() && p < 3; ++p) {
    for (size_t i : unmeasured) {
      if (Shared(task.space[i], task.space[best[p].second]) >= near) pool.insert(i);
    }
  }
  for (int r = 0; r < 8; ++r) pool.insert(unmeasured[(*rng)() % unmeasured.size()]);
  std::vector<size_t> candidates(pool.begin(), pool.end());
  CostModel model;
  std::vector<std::vector<double>> x;
  std::vector<double> y;
  for (const auto& [i, s] : task.measured) {
    if (s <= 0) continue;
    x.push_back(Features(task, task.space[i], target));
    y.push_back(s);
  }
  model.Fit(x, y);
  if (!model.trained() || (*rng)() % 5 == 0) return candidates[(*rng)() % candidates.size()];
  size_t pick = candidates.front();
  double score = 1e300;
  for (size_t i : candidates) {
    double p = model.Predict(Features(task, task.space[i], target));
    if (p < score) {
      score = p;
      pick = i;
    }
  }
  return pick;
}

}  // namespace

std::string DescribeTiles(const tir::GemmTiles& t) {
  return absl::StrCat("mr=", t.mr, " nr=", t.nr, " kc=", t.kc, " nc=", t.nc > 0 ? t.nc : t.nr, " rows=", t.parallel_rows ? 1 : 0);
}

std::string DescribeTiles(const tir::DirectConvTiles& t) {
  return absl::StrCat("conv mr=", t.mr, " nb=", t.nb, t.kc > 0 ? absl::StrCat(" kc=", t.kc) : "", t.groups_inside ? " groups inside" : "",
                      t.row_block > 0 ? absl::StrCat(" row_block=", t.row_block) : "", t.group_span > 0 ? absl::StrCat(" span=", t.group_span) : "");
}

namespace {

std::string Describe(const Candidate& c) { return c.gemm ? DescribeTiles(*c.gemm) : DescribeTiles(*c.conv); }

}  // namespace

absl::StatusOr<std::vector<TaskReport>> TuneModule(const IRModule& mod, const TuneOptions& options, tir::TuningDatabase* db) {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  auto log = [&](const std::string& line) {
    if (options.log != nullptr) *options.log << line << std::endl;
  };
  std::mt19937_64 rng(options.seed);
  std::vector<Task> tasks = ExtractTasks(mod, options.target, options.seed);
  if (options.num_shards < 1 || options.shard < 0 || options.shard >= options.num_shards) {
    return absl::InvalidArgumentError(absl::StrCat("shard ", options.shard, " of ", options.num_shards, " does not exist"));
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
    absl::StatusOr<Measurement> m = s.ok() ? Measure(s->func, task->name, options.target, &task->args, &task->reference)
                                           : absl::StatusOr<Measurement>(s.status());
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
    absl::StatusOr<Measurement> ref = Measure(task.raw, task.name, options.target, &task.args, &task.reference, /*repeats=*/0);
    if (!ref.ok()) return absl::Status(ref.status().code(), absl::StrCat("tune: the unscheduled @", task.name, ": ", ref.status().message()));
    measure(&task, task.default_index);
    double d = task.measured[task.default_index];
    log(absl::StrFormat("tune: [%d/%d] %s (x%d, %d candidates): default %.3f ms", t + 1, tasks.size(), task.name, task.weight,
                        task.space.size(), d * 1e3));
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
      std::optional<size_t> next = NextCandidate(task, options.target, &rng);
      if (!next) break;
      measure(&task, *next);
    }
    // The best measured candidate, confirmed against the default by measuring both again,
    // in turns, three times each: a winner by noise alone (or by a slow first measurement of
    // the default, taken when the task's data was cold) would make the model slower. Only the
    // new measurements count, and the best must beat the default by 3% in their medians.
    size_t best = task.default_index;
    for (const auto& [i, s] : task.measured) {
      if (s > 0 && (task.measured[best] <= 0 || s < task.measured[best])) best = i;
    }
    if (best != task.default_index && task.measured[task.default_index] > 0) {
      std::vector<double> b, d;
      for (int round = 0; round < 3; ++round) {
        measure(&task, best);
        b.push_back(task.measured[best]);
        measure(&task, task.default_index);
        d.push_back(task.measured[task.default_index]);
      }
      std::sort(b.begin(), b.end());
      std::sort(d.begin(), d.end());
      task.measured[best] = b[1];
      task.measured[task.default_index] = d[1];
      if (!(b[1] > 0 && b[1] < 0.97 * d[1])) best = task.default_index;
    }
    TaskReport r;
    r.name = task.name;
    r.workload = task.workload;
    r.weight = task.weight;
    r.trials = static_cast<int>(task.measured.size());
    r.failed = task.failed;
    r.default_seconds = task.measured[task.default_index];
    r.best_seconds = task.measured[best];
    r.choice = Describe(task.space[best]);
    log(absl::StrFormat("tune: [%d/%d] %s: %d trials (%d failed), best %.3f ms (%s), default %.3f ms, %.2fx", t + 1, tasks.size(),
                        task.name, r.trials, r.failed, r.best_seconds * 1e3, r.choice, r.default_seconds * 1e3,
                        r.best_seconds > 0 ? r.default_seconds / r.best_seconds : 0.0));
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
  return reports;
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
  TuneRun run;
  absl::StatusOr<std::vector<TaskReport>> reports = TuneModule(*prepared, options, &db);
  if (!reports.ok()) return reports.status();
  if (absl::Status s = db.Save(db_path); !s.ok()) return s;
  run.reports = *std::move(reports);
  run.records = db.size();
  return run;
}

}  // namespace tune
}  // namespace mlc
