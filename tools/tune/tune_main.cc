/*! \file tune_main.cc
 *  \brief //tools:tune — tunes a model's kernels on this machine and writes a tuning database.
 *
 *    tune --in model.irpb --db records.pb [--trials N | --time_budget S] [--target T]
 *         [--passes default] [--seed 1]
 *
 *  The module goes through the pass pipeline up to default-schedule (so the tasks are the
 *  kernels the build would schedule), then every task is tuned (tools/tune/tuner.h). Records
 *  already in --db are kept: a new record replaces one only when it is faster. Use the
 *  database with `opt --tuning_db=records.pb`, `pipeline --tuning_db=...` or the Bazel rules'
 *  `tuning_db`.
 */
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_format.h"
#include "ir/serialize.h"
#include "ir/target/target.h"
#include "passes/pass.h"
#include "support/resource_limit_flag.h"
#include "tools/tune/tuner.h"

ABSL_FLAG(std::string, in, "", "module to tune (*.irpb, as imported or parsed)");
ABSL_FLAG(std::string, db, "", "tuning database to write (records already in it are kept unless beaten)");
ABSL_FLAG(int, trials, 0, "measurements in all (0: 16 per task)");
ABSL_FLAG(double, time_budget, 0, "stop searching after this many seconds (0: no limit)");
ABSL_FLAG(std::string, target, "", "target to tune for (default: the module's, else this CPU)");
ABSL_FLAG(std::string, passes, "default", "the pipeline whose kernels are tuned (up to its default-schedule)");
ABSL_FLAG(uint64_t, seed, 1, "seed of the search");

namespace {

int Fail(const std::string& message) {
  std::cerr << "tune: " << message << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Tunes a model's kernels.\n  tune --in model.irpb --db records.pb [--trials 64]");
  absl::ParseCommandLine(argc, argv);
  if (absl::Status s = mlc::ApplyResourceLimitFlag(); !s.ok()) {
    std::cerr << "tune: " << s.message() << "\n";
    return 2;
  }
  auto start = std::chrono::steady_clock::now();
  std::string in = absl::GetFlag(FLAGS_in), db_path = absl::GetFlag(FLAGS_db);
  if (in.empty() || db_path.empty()) {
    std::cerr << "tune: --in and --db are required\n";
    return 2;
  }
  absl::StatusOr<mlc::IRModule> mod = mlc::LoadModule(in);
  if (!mod.ok()) return Fail(std::string(mod.status().message()));
  if (absl::Status s = mlc::RecordTargetFlag(&mod->mutable_attrs(), absl::GetFlag(FLAGS_target)); !s.ok()) {
    return Fail(absl::StrCat(in, ": ", s.message()));
  }
  absl::StatusOr<mlc::Target> target = mlc::TargetFromAttrs(mod->attrs());
  if (!target.ok()) return Fail(std::string(target.status().message()));
  if (absl::Status s = mlc::RecordTarget(&mod->mutable_attrs(), *target); !s.ok()) return Fail(std::string(s.message()));
  // The kernels as the build would schedule them.
  absl::StatusOr<std::vector<std::unique_ptr<mlc::passes::Pass>>> passes =
      mlc::passes::PipelineBeforeScheduling(absl::GetFlag(FLAGS_passes));
  if (!passes.ok()) return Fail(absl::StrCat("--passes: ", passes.status().message()));
  absl::StatusOr<mlc::IRModule> prepared = mlc::passes::RunPipeline(*mod, *passes, {});
  if (!prepared.ok()) return Fail(absl::StrCat(in, ": ", prepared.status().message()));

  mlc::tir::TuningDatabase db;
  if (std::filesystem::exists(db_path)) {
    absl::StatusOr<mlc::tir::TuningDatabase> old = mlc::tir::TuningDatabase::Load(db_path);
    if (!old.ok()) return Fail(std::string(old.status().message()));
    db = *old;
  }
  mlc::tune::TuneOptions options;
  options.target = *target;
  options.trials = absl::GetFlag(FLAGS_trials);
  options.time_budget = absl::GetFlag(FLAGS_time_budget);
  options.seed = absl::GetFlag(FLAGS_seed);
  options.log = &std::cerr;
  absl::StatusOr<std::vector<mlc::tune::TaskReport>> reports = mlc::tune::TuneModule(*prepared, options, &db);
  if (!reports.ok()) return Fail(std::string(reports.status().message()));
  if (absl::Status s = db.Save(db_path); !s.ok()) return Fail(std::string(s.message()));
  double before = 0, after = 0;
  for (const auto& r : *reports) {
    before += r.weight * r.default_seconds;
    after += r.weight * r.best_seconds;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("tuned %zu tasks in %.1f s: their kernels %.3f ms -> %.3f ms (%.2fx); %zu records in %s\n", reports->size(), seconds,
              before * 1e3, after * 1e3, after > 0 ? before / after : 0.0, db.size(), db_path.c_str());
  return 0;
}
