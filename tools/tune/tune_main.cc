/*! \file tune_main.cc
 *  \brief //tools:tune — tunes a model's kernels on this machine and writes a tuning database.
 *
 *    tune --in model.onnx|model.irpb --db records.pb [--trials N | --time_budget S] [--target T]
 *         [--passes default] [--seed 1] [--candidates measured.tsv]
 *
 *  The module goes through the pass pipeline up to default-schedule (so the tasks are the
 *  kernels the build would schedule), then every task is tuned (tools/tune/tuner.h). Records
 *  already in --db are kept: a new record replaces one only when it is faster. Use the
 *  database with `opt --tuning_db=records.pb`, `pipeline --tuning_db=...` or the Bazel rules'
 *  `tuning_db`.
 */
#include <chrono>
#include <cstdio>
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "frontend/model_file.h"
#include "ir/graph/serialize.h"
#include "support/file_util.h"
#include "support/resource_limit_flag.h"
#include "tools/tune/tuner.h"

ABSL_FLAG(std::string, in, "", "model to tune: *.onnx, *.fxpb, or *.irpb (as imported or parsed)");
ABSL_FLAG(std::string, db, "", "tuning database to write (records already in it are kept unless beaten)");
ABSL_FLAG(int, trials, 0, "measurements in all (0: 16 per task)");
ABSL_FLAG(double, time_budget, 0, "stop searching after this many seconds (0: no limit)");
ABSL_FLAG(std::string, target, "", "target to tune for (default: the module's, else this CPU)");
ABSL_FLAG(std::string, passes, "default", "the pipeline whose kernels are tuned (up to its default-schedule)");
ABSL_FLAG(uint64_t, seed, 1, "seed of the search");
ABSL_FLAG(std::string, candidates, "",
          "write every measured candidate here (TSV: task, workload, choice, default, milliseconds, features): what "
          "to fit the default rules' cost models to");
ABSL_FLAG(std::string, shard, "", "i/n: tune only every n-th task starting at the i-th (tune_model's actions)");
ABSL_FLAG(std::string, merge, "",
          "comma-separated tuning databases to merge into --db (faster record wins); no tuning");

namespace {

int Fail(const std::string& message) {
  std::cerr << "tune: " << message << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Tunes a model's kernels.\n  tune --in model.irpb --db records.pb [--trials 64]");
  absl::ParseCommandLine(argc, argv);
  mlc::EnterUserDirectory();  // relative paths are the user's under ./bazelw run
  if (absl::Status s = mlc::ApplyResourceLimitFlag(); !s.ok()) {
    std::cerr << "tune: " << s.message() << "\n";
    return 2;
  }
  auto start = std::chrono::steady_clock::now();
  std::string in = absl::GetFlag(FLAGS_in), db_path = absl::GetFlag(FLAGS_db);
  if ((in.empty() && absl::GetFlag(FLAGS_merge).empty()) || db_path.empty()) {
    std::cerr << "tune: --db and one of --in and --merge are required\n";
    return 2;
  }
  if (std::string merge = absl::GetFlag(FLAGS_merge); !merge.empty()) {
    mlc::tir::TuningDatabase db;
    for (absl::string_view path : absl::StrSplit(merge, ',', absl::SkipEmpty())) {
      absl::StatusOr<mlc::tir::TuningDatabase> part = mlc::tir::TuningDatabase::Load(std::string(path));
      if (!part.ok()) return Fail(std::string(part.status().message()));
      db.Merge(*part);
    }
    if (absl::Status s = db.Save(db_path); !s.ok()) return Fail(std::string(s.message()));
    std::printf("merged %zu records into %s\n", db.size(), db_path.c_str());
    return 0;
  }
  // A model file is imported as the import stage would (mlc.tune does the same).
  absl::StatusOr<mlc::IRModule> mod = mlc::ImportModelFile(in, {}, /*with_irpb=*/true);
  if (!mod.ok()) return Fail(std::string(mod.status().message()));
  mlc::tune::TuneOptions options;
  if (std::string shard = absl::GetFlag(FLAGS_shard); !shard.empty()) {
    std::vector<std::string> parts = absl::StrSplit(shard, '/');
    if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &options.shard) ||
        !absl::SimpleAtoi(parts[1], &options.num_shards)) {
      std::cerr << "tune: --shard takes i/n, got '" << shard << "'\n";
      return 2;
    }
  }
  options.trials = absl::GetFlag(FLAGS_trials);
  options.time_budget = absl::GetFlag(FLAGS_time_budget);
  options.seed = absl::GetFlag(FLAGS_seed);
  options.log = &std::cerr;
  absl::StatusOr<mlc::tune::TuneRun> run =
      mlc::tune::TuneToDatabase(*mod, absl::GetFlag(FLAGS_target), absl::GetFlag(FLAGS_passes), options, db_path);
  if (!run.ok()) return Fail(absl::StrCat(in, ": ", run.status().message()));
  const std::vector<mlc::tune::TaskReport>* reports = &run->reports;
  if (std::string path = absl::GetFlag(FLAGS_candidates); !path.empty()) {
    std::string tsv = "task\tworkload\tchoice\tdefault\tms\tfeatures\n";
    for (const mlc::tune::TaskReport& r : *reports) {
      for (const mlc::tune::CandidateReport& c : r.candidates) {
        absl::StrAppend(&tsv, r.name, "\t", r.workload, "\t", c.choice, "\t", c.is_default ? 1 : 0, "\t",
                        absl::StrFormat("%.4f", c.seconds * 1e3), "\t", absl::StrJoin(c.features, ","), "\n");
      }
    }
    if (absl::Status s = mlc::WriteFileAtomically(path, tsv); !s.ok()) return Fail(std::string(s.message()));
  }
  double before = 0, after = 0;
  int not_run = 0;  // tasks whose default schedule did not run or match (no time to add)
  for (const auto& r : *reports) {
    if (r.default_seconds <= 0 || r.best_seconds <= 0) {
      ++not_run;
      continue;
    }
    before += r.weight * r.default_seconds;
    after += r.weight * r.best_seconds;
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("tuned %zu tasks in %.1f s: their kernels %.3f ms -> %.3f ms (%.2fx)%s; %zu records in %s\n",
              reports->size(), seconds, before * 1e3, after * 1e3, after > 0 ? before / after : 0.0,
              not_run > 0 ? absl::StrCat(", ", not_run, " not measured").c_str() : "", run->records, db_path.c_str());
  const mlc::tune::ModelCheck& model = run->model;
  if (model.skipped.empty()) {
    std::printf("in the model: %.3f ms -> %.3f ms per call (%.2fx), %zu record(s) checked\n",
                model.default_seconds * 1e3, model.tuned_seconds * 1e3,
                model.tuned_seconds > 0 ? model.default_seconds / model.tuned_seconds : 0.0, model.records.size());
  } else {
    std::printf("in the model: not run (%s)\n", model.skipped.c_str());
  }
  return 0;
}
