/*! \file tune_test.cc
 *  \brief The tuning loop end to end on a tiny budget (tune -> records -> build -> run), the
 *         database's round trip and merging, and records that must not be applied: for
 *         another target, corrupt, or no longer matching their function.
 */
#include <cmath>
#include <random>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "codegen/build.h"
#include "frontend/tvmscript.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/graph/structural_equal.h"
#include "passes/apply_trace.h"
#include "passes/pass.h"
#include "passes/schedule/rules/rules.h"
#include "passes/schedule/schedule.h"
#include "passes/schedule/tuning_database.h"
#include "passes/schedule/tuning_database.pb.h"
#include "support/file_util.h"
#include "support/sealed_file.h"
#include "tools/testing/kernel_harness.h"
#include "tools/tune/measure.h"
#include "tools/tune/tuner.h"
#include "vm/virtual_machine.h"

namespace mlc {
namespace {

using ::testing::HasSubstr;

constexpr char kDense[] = R"(
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((32, 64), dtype="float32"), w: R.Tensor((64, 64), dtype="float32")):
        with R.dataflow():
            gv = R.nn.relu(R.nn.dense(x, w))
            R.output(gv)
        return gv
)";

IRModule RunPasses(const IRModule& mod, const std::string& pipeline) {
  absl::StatusOr<std::vector<std::unique_ptr<passes::Pass>>> p = passes::ParsePipeline(pipeline);
  EXPECT_TRUE(p.ok()) << p.status();
  absl::StatusOr<IRModule> out = passes::RunPipeline(mod, *p);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : IRModule();
}

/*! \brief The module `text` (default: the dense + ReLU) as default-schedule receives it. */
IRModule Prepared(const std::string& text = kDense) {
  absl::StatusOr<IRModule> mod = ParseTVMScript(text, "module.py");
  EXPECT_TRUE(mod.ok()) << mod.status();
  return mod.ok() ? RunPasses(*mod, "fuse-ops,legalize,fuse-tir,remove-unused") : IRModule();
}

std::string KernelName(const IRModule& mod) {
  for (const auto& [name, f] : mod.functions()) {
    if (mod.LookupPrimFunc(name).defined()) return name;
  }
  return "";
}

tir::TuningDatabase Tune(const IRModule& prepared, std::vector<tune::TaskReport>* reports = nullptr) {
  tune::TuneOptions options;
  options.target = *Target::Parse("x86-64-v3");
  options.trials = 6;
  options.seed = 7;
  tir::TuningDatabase db;
  absl::StatusOr<tune::TuneRun> r = tune::TuneModule(prepared, options, &db);
  EXPECT_TRUE(r.ok()) << r.status();
  if (reports != nullptr && r.ok()) *reports = r->reports;
  return db;
}

std::string Saved(const tir::TuningDatabase& db, const std::string& file) {
  std::string path = absl::StrCat(::testing::TempDir(), "/", file);
  EXPECT_TRUE(db.Save(path).ok());
  return path;
}

/*! \brief `main` of `mod` (scheduled) built and run on `inputs`. */
absl::StatusOr<vm::Value> BuildAndRun(const IRModule& mod, const std::vector<vm::Value>& inputs) {
  absl::StatusOr<proto::Executable> exe = codegen::Build(mod);
  if (!exe.ok()) return exe.status();
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = vm::VirtualMachine::Load(*exe);
  if (!vm.ok()) return vm.status();
  return (*vm)->Invoke("main", inputs);
}

/*! \brief relu(x w^T) for the 32 x 64 x and 64 x 64 w of the dense modules, in double. */
std::vector<double> DenseRelu(const vm::NDArray& x, const vm::NDArray& w) {
  std::vector<double> want(32 * 64);
  for (int i = 0; i < 32; ++i) {
    for (int j = 0; j < 64; ++j) {
      double acc = 0;
      for (int k = 0; k < 64; ++k) acc += double(testing_util::F(x)[i * 64 + k]) * testing_util::F(w)[j * 64 + k];
      want[i * 64 + j] = std::max(acc, 0.0);
    }
  }
  return want;
}

TEST(Tuning, TinyBudgetTunesBuildsAndRunsCorrectly) {
  IRModule prepared = Prepared();
  std::vector<tune::TaskReport> reports;
  tir::TuningDatabase db = Tune(prepared, &reports);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].failed, 0);
  EXPECT_GE(reports[0].trials, 2) << "the default and at least one searched candidate";
  EXPECT_GT(reports[0].best_seconds, 0);
  EXPECT_LE(reports[0].best_seconds, reports[0].default_seconds) << "the best is never worse than the default measured";
  ASSERT_EQ(db.size(), 1u);
  const tir::TuningRecord* record = db.records()[0];
  EXPECT_EQ(record->target, "llvm -mcpu=x86-64-v3");
  EXPECT_EQ(record->workload, tir::WorkloadKey(prepared.LookupPrimFunc(KernelName(prepared))));
  EXPECT_FALSE(record->trace.empty());

  // Records -> build -> run: the record schedules the kernel, and the result is right.
  std::string path = Saved(db, "tiny.pb");
  IRModule applied = RunPasses(prepared, absl::StrCat("apply-tuning-records{db=", path, "}"));
  EXPECT_TRUE(tir::IsScheduled(applied.LookupPrimFunc(KernelName(applied))));
  IRModule built = RunPasses(applied, "default-schedule");
  std::mt19937 rng(3);
  vm::NDArray x = testing_util::Random({32, 64}, &rng), w = testing_util::Random({64, 64}, &rng);
  absl::StatusOr<vm::Value> out = BuildAndRun(built, {vm::Value(x), vm::Value(w)});
  ASSERT_TRUE(out.ok()) << out.status();
  testing_util::ExpectClose(out->tensor(), DenseRelu(x, w));
}

constexpr char kDenseConstantWeight[] = R"(
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((32, 64), dtype="float32")):
        with R.dataflow():
            gv = R.nn.relu(R.nn.dense(x, metadata["relax.expr.Constant"][0]))
            R.output(gv)
        return gv
)";

// pack-constants packs a constant weight at compile time, so the tuner times candidates without
// their packing copy (timed with it, it picked the tiles that packed fastest: an MLP layer
// tuned 10% slower than its default). A weight passed at run time is packed in every call, so
// there the copy is timed.
TEST(Tuning, AConstantWeightIsPackedBeforeTheTimedCallsAndTheTunedKernelIsRight) {
  std::mt19937 rng(11);
  vm::NDArray w = testing_util::Random({64, 64}, &rng);
  ParseOptions options;
  options.constants = std::vector<TensorData>{testing_util::ToTensorData(w)};
  absl::StatusOr<IRModule> mod = ParseTVMScript(kDenseConstantWeight, "dense_constant.py", options);
  ASSERT_TRUE(mod.ok()) << mod.status();
  IRModule prepared = RunPasses(*mod, "fuse-ops,legalize,fuse-tir,remove-unused");
  std::vector<tune::TaskReport> reports;
  tir::TuningDatabase db = Tune(prepared, &reports);
  ASSERT_EQ(reports.size(), 1u);
  EXPECT_EQ(reports[0].failed, 0);
  EXPECT_EQ(reports[0].packed_ahead, 1) << "the weight's packing copy ran before the timed calls";

  std::vector<tune::TaskReport> runtime_weight;
  Tune(Prepared(), &runtime_weight);
  ASSERT_EQ(runtime_weight.size(), 1u);
  EXPECT_EQ(runtime_weight[0].packed_ahead, 0) << "a weight passed at run time is packed in every call";

  IRModule built = RunPasses(prepared, absl::StrCat("apply-tuning-records{db=", Saved(db, "dense_constant.pb"),
                                                    "},default-schedule,"
                                                    "pack-constants,remove-unused"));
  vm::NDArray x = testing_util::Random({32, 64}, &rng);
  absl::StatusOr<vm::Value> out = BuildAndRun(built, {vm::Value(x)});
  ASSERT_TRUE(out.ok()) << out.status();
  testing_util::ExpectClose(out->tensor(), DenseRelu(x, w));
}

constexpr char kConv[] = R"(
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((1, 16, 12, 14), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], padding=[1, 1, 1, 1])
            gv = R.nn.relu(lv)
            R.output(gv)
        return gv
)";

/*! \brief `text` parsed with `constant` as metadata["relax.expr.Constant"][0]. */
IRModule ParseWithConstant(const char* text, const char* file, const vm::NDArray& constant) {
  ParseOptions options;
  options.constants = std::vector<TensorData>{testing_util::ToTensorData(constant)};
  absl::StatusOr<IRModule> mod = ParseTVMScript(text, file, options);
  EXPECT_TRUE(mod.ok()) << mod.status();
  return mod.ok() ? *mod : IRModule();
}

/*! \brief x (1, C, H, W) convolved with w (O, C, 3, 3), padding 1, in double: (O, H, W) row-major. */
std::vector<double> Conv3x3Pad1(const vm::NDArray& x, const vm::NDArray& w) {
  const int64_t outs = w.shape()[0], channels = x.shape()[1], h = x.shape()[2], wd = x.shape()[3];
  std::vector<double> out;
  for (int64_t o = 0; o < outs; ++o)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t xx = 0; xx < wd; ++xx) {
        double acc = 0;
        for (int64_t c = 0; c < channels; ++c)
          for (int64_t ky = 0; ky < 3; ++ky)
            for (int64_t kx = 0; kx < 3; ++kx) {
              const int64_t iy = y + ky - 1, ix = xx + kx - 1;
              if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
              acc += double(testing_util::F(x)[(c * h + iy) * wd + ix]) *
                     testing_util::F(w)[((o * channels + c) * 3 + ky) * 3 + kx];
            }
        out.push_back(acc);
      }
  return out;
}

// A convolution in channel blocks (alter-op-layout) is a task of the direct-convolution rule:
// its register tiles are searched, the record applies, and the tuned kernel computes the same.
TEST(Tuning, ConvolutionTilesAreSearchedAndTheTunedKernelIsRight) {
  std::mt19937 rng(5);
  vm::NDArray w = testing_util::Random({32, 16, 3, 3}, &rng);
  IRModule prepared = RunPasses(ParseWithConstant(kConv, "conv.py", w),
                                "alter-op-layout,remove-unused,fuse-ops,legalize,fuse-tir,remove-unused");
  std::vector<tune::TaskReport> reports;
  tir::TuningDatabase db = Tune(prepared, &reports);
  ASSERT_EQ(reports.size(), 1u)
      << "one task: the fused convolution (the layout transforms have no GEMM or convolution)";
  EXPECT_EQ(reports[0].failed, 0);
  EXPECT_GE(reports[0].trials, 2);
  EXPECT_THAT(reports[0].choice, HasSubstr("conv mr="));
  ASSERT_EQ(db.size(), 1u);
  IRModule applied =
      RunPasses(prepared, absl::StrCat("apply-tuning-records{db=", Saved(db, "conv.pb"), "},default-schedule"));
  vm::NDArray x = testing_util::Random({1, 16, 12, 14}, &rng);
  absl::StatusOr<vm::Value> out = BuildAndRun(applied, {vm::Value(x)});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want = Conv3x3Pad1(x, w);
  for (double& v : want) v = std::max(v, 0.0);
  testing_util::ExpectClose(out->tensor(), want, 1e-4, 1e-4);
}

// The rules' alternatives are knobs (passes/schedule/rules/knob.h): the GEMM rule asks for its
// tile with the choices described and its own pick as the default; another answer changes the
// schedule, and the trace keeps the answer, so replaying it gives the same function.
TEST(Tuning, RulesAskForDecisionsAndTheTraceKeepsTheAnswer) {
  IRModule prepared = Prepared();
  const std::string name = KernelName(prepared);
  const Target target = *Target::Parse("x86-64-v3");
  auto schedule = [&](const tir::Decider& decide) {
    tir::Schedule sch(prepared);
    EXPECT_EQ(tir::ApplyDefaultSchedule(&sch, name, target, nullptr, decide), 1);
    return sch;
  };
  std::vector<tir::Knob> knobs;
  tir::Schedule defaults = schedule([&](const tir::Knob& k) {
    knobs.push_back(k);
    return k.default_choice;
  });
  ASSERT_EQ(knobs.size(), 1u);
  EXPECT_EQ(knobs[0].rule, "GEMM tile");
  ASSERT_GE(knobs[0].choices.size(), 2u);
  EXPECT_THAT(knobs[0].choices[knobs[0].default_choice].description, HasSubstr("mr="));
  const size_t other = knobs[0].default_choice == 0 ? 1 : 0;
  tir::Schedule changed = schedule([&](const tir::Knob& k) { return other; });
  EXPECT_FALSE(StructuralEqual(changed.mod().LookupPrimFunc(name), defaults.mod().LookupPrimFunc(name)))
      << "choice " << knobs[0].choices[other].description << " scheduled as the default "
      << knobs[0].choices[knobs[0].default_choice].description;
  const std::string trace = changed.trace().AsPython();
  EXPECT_THAT(trace, HasSubstr("sample_categorical"));
  EXPECT_THAT(trace, HasSubstr(absl::StrCat("decision=", other)));
  absl::StatusOr<IRModule> replayed = passes::ApplyTraceToModule(prepared, changed.trace());
  ASSERT_TRUE(replayed.ok()) << replayed.status();
  EXPECT_TRUE(StructuralEqual(replayed->LookupPrimFunc(name), changed.mod().LookupPrimFunc(name)));
  // An answer that is not a choice is refused, with the block named.
  std::vector<std::string> notes;
  tir::Schedule refused(prepared);
  tir::ApplyDefaultSchedule(&refused, name, target, &notes, [&](const tir::Knob& k) { return k.choices.size(); });
  ASSERT_FALSE(notes.empty());
  EXPECT_THAT(notes[0], HasSubstr("GEMM tile choice"));
}

constexpr char kConvPool[] = R"(
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((1, 16, 14, 14), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], padding=[1, 1, 1, 1])
            gv = R.nn.max_pool2d(lv, pool_size=[3, 3], strides=[1, 1], padding=[0, 0, 0, 0])
            R.output(gv)
        return gv
)";

// A max pool over channel-blocked data (after a convolution, alter-op-layout) asks the window
// rule's knob: the pixels per register tile. Every choice schedules a different kernel that
// computes the same pool.
TEST(Tuning, ABlockedWindowAsksForItsPixelsPerTileAndEveryChoiceIsRight) {
  std::mt19937 rng(9);
  vm::NDArray w = testing_util::Random({16, 16, 3, 3}, &rng);
  // Unfused, so that the pool is a function of its own.
  IRModule prepared = RunPasses(ParseWithConstant(kConvPool, "conv_pool.py", w),
                                "alter-op-layout,remove-unused,legalize,remove-unused");
  const Target target = *Target::Parse("x86-64-v3");
  std::string pool;
  std::vector<tir::Knob> knobs;
  for (const auto& [name, f] : prepared.functions()) {
    if (!prepared.LookupPrimFunc(name).defined()) continue;
    tir::Schedule sch(prepared);
    std::vector<tir::Knob> asked;
    tir::ApplyDefaultSchedule(&sch, name, target, nullptr, [&](const tir::Knob& k) {
      asked.push_back(k);
      return k.default_choice;
    });
    for (const tir::Knob& k : asked) {
      if (k.rule != "window tile") continue;
      pool = name;
      knobs.push_back(k);
    }
  }
  ASSERT_EQ(knobs.size(), 1u) << "one blocked window: the max pool";
  const tir::Knob& knob = knobs[0];
  // The pooled row is 12 pixels of one 8-lane channel block (NCHW8c on x86-64-v3): 1, 2, 3, 4 or
  // 6 pixels divide it with the accumulators within half of the 16 registers; the rule's own
  // pick is the most within 8 vectors, 6.
  std::vector<std::string> descriptions;
  for (const tir::KnobChoice& c : knob.choices) descriptions.push_back(c.description);
  EXPECT_THAT(descriptions, ::testing::ElementsAre("window pixels=1", "window pixels=2", "window pixels=3",
                                                   "window pixels=4", "window pixels=6"));
  EXPECT_EQ(knob.choices[knob.default_choice].description, "window pixels=6");

  vm::NDArray x = testing_util::Random({1, 16, 14, 14}, &rng);
  const std::vector<double> conv = Conv3x3Pad1(x, w);
  std::vector<double> want;
  for (int o = 0; o < 16; ++o)
    for (int y = 0; y < 12; ++y)
      for (int xx = 0; xx < 12; ++xx) {
        double m = -INFINITY;
        for (int ky = 0; ky < 3; ++ky)
          for (int kx = 0; kx < 3; ++kx) m = std::max(m, conv[(o * 14 + y + ky) * 14 + xx + kx]);
        want.push_back(m);
      }
  std::vector<IRModule> kernels;
  for (size_t choice = 0; choice < knob.choices.size(); ++choice) {
    SCOPED_TRACE(knob.choices[choice].description);
    tir::Schedule sch(prepared);
    for (const auto& [name, f] : prepared.functions()) {
      if (!prepared.LookupPrimFunc(name).defined()) continue;
      tir::ApplyDefaultSchedule(&sch, name, target, nullptr, [&](const tir::Knob& k) {
        return k.rule == "window tile" ? choice : k.default_choice;
      });
    }
    EXPECT_THAT(sch.trace().AsPython(), HasSubstr(absl::StrCat("decision=", choice)));
    for (const IRModule& other : kernels)
      EXPECT_FALSE(StructuralEqual(other.LookupPrimFunc(pool), sch.mod().LookupPrimFunc(pool)));
    kernels.push_back(sch.mod());
    absl::StatusOr<vm::Value> out = BuildAndRun(sch.mod(), {vm::Value(x)});
    ASSERT_TRUE(out.ok()) << out.status();
    testing_util::ExpectClose(out->tensor(), want, 1e-4, 1e-4);
  }
}

/*! \brief "mr=6 nr=16 ..." -> 6 x 16: a GEMM tile's register block. */
int64_t RegisterBlock(const std::string& description) {
  int64_t mr = 0, nr = 0;
  for (absl::string_view part : absl::StrSplit(description, ' ')) {
    if (absl::ConsumePrefix(&part, "mr=")) (void)absl::SimpleAtoi(part, &mr);
    if (absl::ConsumePrefix(&part, "nr=")) (void)absl::SimpleAtoi(part, &nr);
  }
  return mr * nr;
}

// A record wins timed alone, so the tuner keeps it; the model is what it must not slow down.
// A record with the GEMM's smallest register tile (claimed faster than anything) loses to the
// default rules' tile in the model, and goes back to the default schedule.
TEST(Tuning, ARecordSlowerInTheModelGoesBackToTheDefaultSchedule) {
  // kDense at 256 x 512 x 512: a kernel long enough that the tiles' difference is far above noise.
  std::string large(kDense);
  large.replace(large.find("(32, 64)"), 8, "(256, 512)");
  large.replace(large.find("(64, 64)"), 8, "(512, 512)");
  IRModule prepared = Prepared(large);
  const std::string name = KernelName(prepared);
  const Target target = *Target::Parse("x86-64-v3");
  IRModule one;
  one.Add(name, tir::SimplifiedForRules(prepared.LookupPrimFunc(name)));
  tir::Schedule sch(one);
  std::string choice;
  tir::Decider smallest = [&](const tir::Knob& k) {
    size_t pick = 0;
    for (size_t c = 1; c < k.choices.size(); ++c) {
      if (RegisterBlock(k.choices[c].description) < RegisterBlock(k.choices[pick].description)) pick = c;
    }
    choice = k.choices[pick].description;
    return pick;
  };
  tir::ApplyDefaultSchedule(&sch, name, target, nullptr, smallest);
  ASSERT_GT(RegisterBlock(choice), 0) << "the GEMM rule asked for its tile";
  tir::TuningDatabase db;
  const std::string workload = tir::WorkloadKey(prepared.LookupPrimFunc(name));
  db.Add(tir::TuningRecord{workload, target.str(), sch.trace(), name, /*seconds=*/1e-9, choice,
                           /*default_seconds=*/1.0});

  std::ostringstream log;
  absl::StatusOr<tune::ModelCheck> check = tune::CheckRecordsInModel(prepared, "default", target, &db, &log);
  ASSERT_TRUE(check.ok()) << check.status();
  ASSERT_EQ(check->records.size(), 1u) << "the record schedules the kernel otherwise than the default";
  const tune::RecordInModel& r = check->records[0];
  EXPECT_GT(r.default_seconds, 0) << "the kernel was found in the model's profile\n" << log.str();
  EXPECT_GT(r.tuned_seconds, r.default_seconds) << log.str();
  EXPECT_FALSE(r.kept) << log.str();
  EXPECT_THAT(log.str(), HasSubstr("back to the default"));
  const tir::TuningRecord* now = db.Find(workload, target.str());
  ASSERT_NE(now, nullptr);
  EXPECT_NE(now->choice, choice);
  EXPECT_EQ(now->seconds, 1.0) << "the record now has the default's time";

  // What the database holds now schedules as the default rules do: nothing left to confirm.
  absl::StatusOr<tune::ModelCheck> again = tune::CheckRecordsInModel(prepared, "default", target, &db, nullptr);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(again->records.empty());
  EXPECT_THAT(again->skipped, HasSubstr("no record"));
}

constexpr char kGather[] = R"(
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(table: R.Tensor((1000, 64), dtype="float32"), ids: R.Tensor((32,), dtype="int64")):
        with R.dataflow():
            gv = R.take(table, ids, axis=0)
            R.output(gv)
        return gv
)";

// A kernel's integer inputs (a gather's indices) are zeros, which every table holds, and get
// an int64's room: random float bits read as indices sent FCN-ResNet50's upsampling kernel
// outside its table, so the tuner failed it (or could have crashed).
TEST(Tuning, IntegerInputsAreZerosSizedByTheirType) {
  IRModule prepared = Prepared(kGather);
  const std::string name = KernelName(prepared);
  tir::PrimFunc func = prepared.LookupPrimFunc(name);
  ASSERT_EQ(func->params.size(), 3u);
  ASSERT_EQ(func->params[0]->dtype, DataType::Float32()) << "the table comes first";
  ASSERT_EQ(func->params[1]->dtype, DataType::Int64());
  tune::KernelArguments args = tune::KernelArguments::For(func, 3);
  std::vector<std::string> reference;
  absl::StatusOr<tune::Measurement> m =
      tune::Measure(func, name, *Target::Parse("x86-64-v3"), &args, &reference, /*repeats=*/0);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(reference.size(), 1u);
  ASSERT_GE(reference[0].size(), 32 * 64 * sizeof(float));
  const float* out = reinterpret_cast<const float*>(reference[0].data());
  TensorData table = args.Tensor(0, {1000, 64});
  const float* row0 = static_cast<const float*>(table.data());
  EXPECT_NE(row0[0], 0.0f) << "the table is random";
  for (int i = 0; i < 32; ++i) {
    for (int j = 0; j < 64; ++j) ASSERT_EQ(out[i * 64 + j], row0[j]) << "row " << i << ", column " << j;
  }
}

TEST(Tuning, DatabaseRoundTripsAndMergesKeepingTheFastest) {
  tir::TuningDatabase db = Tune(Prepared());
  absl::StatusOr<tir::TuningDatabase> loaded = tir::TuningDatabase::Load(Saved(db, "round.pb"));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->size(), 1u);
  const tir::TuningRecord r = *loaded->records()[0];
  EXPECT_EQ(r.seconds, db.records()[0]->seconds);
  EXPECT_EQ(r.trace.AsPython(), db.records()[0]->trace.AsPython());
  tir::TuningRecord slower = r, faster = r;
  slower.seconds = r.seconds * 2;
  faster.seconds = r.seconds / 2;
  tir::TuningDatabase other;
  other.Add(slower);
  loaded->Merge(other);
  EXPECT_EQ(loaded->records()[0]->seconds, r.seconds);
  other.Add(faster);
  loaded->Merge(other);
  EXPECT_EQ(loaded->records()[0]->seconds, r.seconds / 2);
}

TEST(Tuning, WorkloadKeysIgnoreNamesButNotShapes) {
  IRModule a = Prepared();
  std::string key = tir::WorkloadKey(a.LookupPrimFunc(KernelName(a)));
  std::string renamed(kDense);
  renamed.replace(renamed.find("def main(x"), 10, "def main(y");
  renamed.replace(renamed.find("R.nn.dense(x"), 12, "R.nn.dense(y");
  IRModule pb = Prepared(renamed);
  EXPECT_EQ(tir::WorkloadKey(pb.LookupPrimFunc(KernelName(pb))), key);
  std::string bigger(kDense);
  bigger.replace(bigger.find("(32, 64)"), 8, "(48, 64)");
  IRModule pc = Prepared(bigger);
  EXPECT_NE(tir::WorkloadKey(pc.LookupPrimFunc(KernelName(pc))), key);
}

TEST(Tuning, ARecordForAnotherTargetIsIgnoredWithAWarning) {
  IRModule prepared = Prepared();
  tir::TuningDatabase db = Tune(prepared);
  tir::TuningRecord foreign = *db.records()[0];
  foreign.target = "llvm -mcpu=znver4";
  tir::TuningDatabase only_foreign;
  only_foreign.Add(foreign);
  std::string path = Saved(only_foreign, "foreign.pb");
  ::testing::internal::CaptureStderr();
  IRModule applied = RunPasses(prepared, absl::StrCat("apply-tuning-records{db=", path, "}"));
  std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_FALSE(tir::IsScheduled(applied.LookupPrimFunc(KernelName(applied))));
  EXPECT_THAT(err, HasSubstr("has records only for target(s) llvm -mcpu=znver4, not llvm -mcpu=x86-64-v3: ignored"));
}

TEST(Tuning, CorruptOrStaleRecordsAreIgnoredWithAWarning) {
  IRModule prepared = Prepared();
  std::string name = KernelName(prepared);
  // A record whose trace bytes are damaged: dropped when the database is read.
  proto::TuningDatabaseProto p;
  p.set_magic("mlc.tuning");
  p.set_format_version(tir::kTuningDatabaseFormatVersion);
  proto::TuningRecordProto* r = p.add_records();
  r->set_workload(tir::WorkloadKey(prepared.LookupPrimFunc(name)));
  r->set_target("llvm -mcpu=x86-64-v3");
  r->set_trace("not a trace");
  r->set_seconds(1e-6);
  std::string corrupt = absl::StrCat(::testing::TempDir(), "/corrupt.pb");
  ASSERT_TRUE(WriteFileAtomically(
                  corrupt, Seal(tir::kTuningDatabaseKind, tir::kTuningDatabaseFormatVersion, p.SerializeAsString()))
                  .ok());
  ::testing::internal::CaptureStderr();
  IRModule applied = RunPasses(prepared, absl::StrCat("apply-tuning-records{db=", corrupt, "}"));
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("record 0: not a trace"));
  EXPECT_FALSE(tir::IsScheduled(applied.LookupPrimFunc(name)));

  // A record that names this workload but whose trace addresses blocks it does not have.
  tir::TuningDatabase db = Tune(prepared);
  tir::TuningRecord stale = *db.records()[0];
  tir::Trace renamed;
  for (tir::Instruction inst : stale.trace.instructions()) {
    if (inst.kind == "get_block") inst.inputs[0].s = "no_such_block";
    renamed.Append(inst);
  }
  stale.trace = renamed;
  tir::TuningDatabase stale_db;
  stale_db.Add(stale);
  ::testing::internal::CaptureStderr();
  applied = RunPasses(prepared, absl::StrCat("apply-tuning-records{db=", Saved(stale_db, "stale.pb"), "}"));
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("does not apply"));
  EXPECT_FALSE(tir::IsScheduled(applied.LookupPrimFunc(name)));
}

}  // namespace
}  // namespace mlc
