/*! \file passes_test.cc
 *  \brief The pass infrastructure (options, registry, named pipelines, change reports, the
 *         verifier after each pass), the pattern language, and what each pass must offer (a
 *         golden directory, identity when it has nothing to do). Each pass's own golden cases
 *         are //testdata/passes:<pass>_test.
 */
#include <dirent.h>

#include <algorithm>
#include <random>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "frontend/tvmscript.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/graph/op.h"
#include "ir/graph/printer.h"
#include "ir/graph/structural_equal.h"
#include "ir/testing/golden.h"
#include "passes/pass.h"
#include "passes/pattern.h"
#include "support/file_util.h"

namespace mlc {
namespace passes {
namespace {

using ::testing::HasSubstr;

constexpr char kCases[] = "testdata/passes";

IRModule ParseCase(const std::string& path) {
  absl::StatusOr<IRModule> mod = ParseTVMScript(*ReadFile(absl::StrCat(kCases, "/", path)), path);
  EXPECT_TRUE(mod.ok()) << mod.status();
  return mod.ok() ? *mod : IRModule();
}

TEST(Passes, FoldConstantComputesTheValues) {
  IRModule mod = ParseCase("fold_constant/scalars.py");
  absl::StatusOr<IRModule> out = RunPipeline(mod, *ParsePipeline("fold-constant,remove-unused"));
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<relax::Expr> constants = CollectConstants(*out);
  ASSERT_EQ(constants.size(), 2u);
  EXPECT_EQ(constants[0].as<relax::ConstantNode>()->data.data_as<float>()[0], 3.5f);  // 1.5 + 2.0
  EXPECT_EQ(constants[1].as<relax::ConstantNode>()->data.data_as<float>()[0], 0.0f);  // relu(3.5 * -2)
}

TEST(Passes, FoldConstantTransposesAWeightOfAnySizeButDoesNotBroadcastOne) {
  // A Linear layer from torch.fx reads permute_dims(W): folding it at any size keeps the
  // transpose off the run (a 2816 x 1024 weight over the old 1M-element limit ran it per call, 3x
  // the matmul's time). A broadcast that would grow the constants past max-elements stays.
  const int64_t n = 1536, k = 1024;  // 1.5M elements
  std::vector<double> values(n * k);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i % 1000);
  ParseOptions options;
  options.constants = std::vector<TensorData>{TensorFromDoubles(DataType::Float32(), {n, k}, values)};
  const std::string text = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4, 1024), dtype="float32")):
        with R.dataflow():
            wt = R.permute_dims(metadata["relax.expr.Constant"][0], axes=[1, 0])
            y = R.matmul(x, wt)
            big = R.broadcast_to(R.const(1.0, "float32"), shape=None, sinfo_args=R.Tensor((2048, 1024), dtype="float32"))
            R.output(y, big)
        return (y, big)
)";
  absl::StatusOr<IRModule> mod = ParseTVMScript(text, "fold.py", options);
  ASSERT_TRUE(mod.ok()) << mod.status();
  absl::StatusOr<IRModule> out = RunPipeline(*mod, *ParsePipeline("fold-constant,remove-unused"));
  ASSERT_TRUE(out.ok()) << out.status();
  const std::string printed = PrintModule(*out);
  EXPECT_THAT(printed, ::testing::Not(HasSubstr("permute_dims"))) << printed;
  EXPECT_THAT(printed, HasSubstr("broadcast_to")) << printed;
  std::vector<relax::Expr> constants = CollectConstants(*out);
  const TensorData* transposed = nullptr;
  for (const relax::Expr& c : constants) {
    const TensorData& d = c.as<relax::ConstantNode>()->data;
    if (d.shape() == std::vector<int64_t>{k, n}) transposed = &d;
  }
  ASSERT_NE(transposed, nullptr) << printed;
  const float* t = transposed->data_as<float>();
  for (int64_t r : {int64_t{0}, int64_t{7}, n - 1}) {
    for (int64_t c : {int64_t{0}, int64_t{513}, k - 1}) ASSERT_EQ(t[c * n + r], static_cast<float>(values[r * k + c]));
  }
}

/*! \brief Four convolutions a, b, c, d of one constant 1x8x6x6 map by constant 4x8x3x3 weights
 *  (`convs`: their attributes), returned as a tuple, folded with and without `pipeline` first:
 *  the same values. Returns the module after `pipeline`, printed. */
std::string ExpectSameConvResults(const std::vector<std::string>& convs, const std::string& pipeline) {
  const int results = static_cast<int>(convs.size());
  std::string text =
      "@I.ir_module\nclass Module:\n    @R.function\n    def main():\n        with R.dataflow():\n"
      "            x = metadata[\"relax.expr.Constant\"][0]\n";
  std::vector<std::string> names;
  for (int i = 0; i < results; ++i) {
    names.push_back(std::string(1, static_cast<char>('a' + i)));
    absl::StrAppend(&text, "            ", names.back(), " = R.nn.conv2d(x, metadata[\"relax.expr.Constant\"][", i + 1,
                    "], ", convs[i], ")\n");
  }
  absl::StrAppend(&text, "            gv = (", absl::StrJoin(names, ", "),
                  ")\n            R.output(gv)\n        return gv\n");
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> dist(-1, 1);
  auto random = [&](std::vector<int64_t> shape) {
    std::vector<double> v(NumElements(shape));
    for (double& e : v) e = dist(rng);
    return TensorFromDoubles(DataType::Float32(), shape, v);
  };
  ParseOptions options;
  options.constants = std::vector<TensorData>{random({1, 8, 6, 6})};
  for (int i = 0; i < results; ++i) options.constants->push_back(random({4, 8, 3, 3}));
  absl::StatusOr<IRModule> mod = ParseTVMScript(text, "convs.py", options);
  EXPECT_TRUE(mod.ok()) << mod.status();
  if (!mod.ok()) return "";
  absl::StatusOr<IRModule> rewritten = RunPipeline(*mod, *ParsePipeline(pipeline));
  EXPECT_TRUE(rewritten.ok()) << rewritten.status();
  if (!rewritten.ok()) return "";
  absl::StatusOr<IRModule> want = RunPipeline(*mod, *ParsePipeline("fold-constant"));
  absl::StatusOr<IRModule> got = RunPipeline(*rewritten, *ParsePipeline("fold-constant"));
  EXPECT_TRUE(want.ok() && got.ok());
  if (!want.ok() || !got.ok()) return "";
  // Folded, main returns a tuple of constants: its fields are the results.
  auto fields = [](const IRModule& m) {
    std::vector<const relax::ConstantNode*> out;
    const auto* seq = m.LookupFunction("main")->body.as<relax::SeqExprNode>();
    for (const relax::BindingBlock& block : seq->blocks) {
      for (const relax::VarBinding& b : block->bindings) {
        if (b->var.get() != seq->body.get()) continue;
        if (const auto* tuple = b->value.as<relax::TupleNode>()) {
          for (const relax::Expr& f : tuple->fields) out.push_back(f.as<relax::ConstantNode>());
        }
      }
    }
    return out;
  };
  std::vector<const relax::ConstantNode*> w = fields(*want), g = fields(*got);
  EXPECT_EQ(w.size(), static_cast<size_t>(results));
  EXPECT_EQ(g.size(), static_cast<size_t>(results));
  for (size_t r = 0; r < static_cast<size_t>(results) && r < w.size() && r < g.size(); ++r) {
    EXPECT_TRUE(w[r] != nullptr && g[r] != nullptr) << "result " << r << " is not folded to a constant";
    if (w[r] == nullptr || g[r] == nullptr) continue;
    const TensorData& a = w[r]->data;
    const TensorData& b = g[r]->data;
    EXPECT_EQ(a.shape(), b.shape()) << "result " << r;
    if (a.shape() != b.shape()) continue;
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      EXPECT_NEAR(a.data_as<float>()[i], b.data_as<float>()[i], 1e-5) << "result " << r << " element " << i;
    }
  }
  return PrintModule(*rewritten);
}

TEST(Passes, PruneConvTapsKeepsEveryResult) {
  // Dilated windows on a 6x6 map (centre only; centre only with stride 2, where the padding after
  // shrinks by the stride's slack; one tap dead on one side only) and one with nothing dead.
  const std::string printed = ExpectSameConvResults(
      {"padding=[8, 8, 8, 8], dilation=[8, 8]", "strides=[2, 2], padding=[6, 6, 6, 6], dilation=[6, 6]",
       "padding=[1, 4, 1, 0], dilation=[1, 4]", "padding=[1, 1, 1, 1]"},
      "prune-conv-taps");
  EXPECT_THAT(printed, HasSubstr("padding=[0, 0, 0, 0], dilation=[1, 1]")) << printed;
  EXPECT_THAT(printed, HasSubstr("strides=[2, 2], padding=[0, 0, 0, 0], dilation=[1, 1]")) << printed;
  EXPECT_THAT(printed, HasSubstr("padding=[1, 1, 1, 1], dilation=[1, 1]")) << printed;  // d: untouched
  EXPECT_THAT(printed, HasSubstr("padding=[1, 0, 1, 0], dilation=[1, 4]"))
      << printed;  // c: its first column of taps dropped
}

TEST(Passes, SplitConvTapsKeepsEveryResult) {
  // Windows that read padding at most (output, tap) pairs, each split into one 1x1 convolution
  // per tap: dilation 4 on a 6x6 map; stride 2 with dilation 3 (the taps' rows every other
  // input); asymmetric padding with dilation (2, 5). Then a window that is left alone.
  const std::string printed = ExpectSameConvResults(
      {"padding=[4, 4, 4, 4], dilation=[4, 4]", "strides=[2, 2], padding=[5, 5, 5, 5], dilation=[3, 3]",
       "padding=[3, 5, 1, 4], dilation=[2, 5]", "padding=[1, 1, 1, 1]"},
      "split-conv-taps");
  // a: nine taps, eight of them sliced; b and c likewise split; d untouched.
  size_t slices = 0;
  for (size_t at = printed.find("R.strided_slice("); at != std::string::npos;
       at = printed.find("R.strided_slice(", at + 1))
    ++slices;
  EXPECT_GE(slices, 8u + 2u + 2u) << printed;
  EXPECT_THAT(printed, HasSubstr("d: R.Tensor((1, 4, 6, 6), dtype=\"float32\") = R.nn.conv2d(x, metadata")) << printed;
}

TEST(Passes, PackConstantsMovesEveryWeightElementIntoItsPanel) {
  // The golden case's dense, with a weight W (N x K) of known values: every element lands at
  // [n / width, k, n % width] of the packed constant.
  const int64_t n = 32, k = 64;
  std::vector<double> values(n * k);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i + 1);
  ParseOptions options;
  options.constants = std::vector<TensorData>{TensorFromDoubles(DataType::Float32(), {n, k}, values)};
  const std::string path = "pack_constants/dense_weight.py";
  absl::StatusOr<IRModule> mod = ParseTVMScript(*ReadFile(absl::StrCat(kCases, "/", path)), path, options);
  ASSERT_TRUE(mod.ok()) << mod.status();
  absl::StatusOr<IRModule> out =
      RunPipeline(*mod, *ParsePipeline("fuse-ops,legalize,fuse-tir,default-schedule,pack-constants,remove-unused"));
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<relax::Expr> constants = CollectConstants(*out);
  ASSERT_EQ(constants.size(), 1u);
  const TensorData& packed = constants[0].as<relax::ConstantNode>()->data;
  ASSERT_EQ(packed.shape().size(), 3u) << "panels, k, panel width";
  const int64_t panels = packed.shape()[0], width = packed.shape()[2];
  ASSERT_EQ(packed.shape()[1], k);
  ASSERT_GE(panels * width, n);
  const float* p = packed.data_as<float>();
  for (int64_t panel = 0; panel < panels; ++panel) {
    for (int64_t kk = 0; kk < k; ++kk) {
      for (int64_t c = 0; c < width; ++c) {
        const int64_t row = panel * width + c;
        const float want = row < n ? static_cast<float>(values[row * k + kk]) : 0.0f;
        ASSERT_EQ(p[(panel * k + kk) * width + c], want) << "panel " << panel << " k " << kk << " column " << c;
      }
    }
  }
}

/*! \brief A pass with nothing to do returns the same functions, and the pipeline reports it. */
TEST(Passes, EveryPassReportsNoChangeWhereItHasNothingToDo) {
  // Loop-level code only, already scheduled: no graph-level operator for any pass to rewrite
  // and no unscheduled loop nest for default-schedule.
  IRModule mod = ParseCase("remove_unused/seed_ewise_fma.expected.py");
  absl::StatusOr<IRModule> lowered = RunPipeline(mod, *ParsePipeline("legalize,remove-unused,default-schedule"));
  ASSERT_TRUE(lowered.ok()) << lowered.status();
  for (const std::string& name : PassRegistry::Global().Names()) {
    if (name == "bind-params" || name == "apply-tuning-records") continue;  // need a file
    absl::StatusOr<std::vector<std::unique_ptr<Pass>>> pass = ParsePipeline(name);
    ASSERT_TRUE(pass.ok());
    std::vector<PassRecord> records;
    PipelineOptions options;
    options.records = &records;
    absl::StatusOr<IRModule> out = RunPipeline(*lowered, *pass, options);
    ASSERT_TRUE(out.ok()) << name << ": " << out.status();
    ASSERT_EQ(records.size(), 1u);
    EXPECT_FALSE(records[0].changed) << name << " changed a module it had nothing to do in";
    EXPECT_TRUE(out->SameAs(*lowered)) << name;
  }
}

/*! \brief Each core pass has its golden directory (testdata/passes/<pass>/), hence its test. */
TEST(Passes, EveryPassHasGoldenCases) {
  for (const std::string& name : PassRegistry::Global().Names()) {
    std::string dir = name;
    std::replace(dir.begin(), dir.end(), '-', '_');
    DIR* d = opendir(absl::StrCat(kCases, "/", dir).c_str());
    EXPECT_NE(d, nullptr) << "pass " << name << " has no golden cases in " << kCases << "/" << dir;
    if (d) closedir(d);
  }
}

TEST(PassInfrastructure, NamedPipelinesExpand) {
  absl::StatusOr<std::vector<std::unique_ptr<Pass>>> p = ParsePipeline("bind-params{params=x.npz},default");
  ASSERT_TRUE(p.ok()) << p.status();
  std::vector<std::string> names;
  for (const auto& pass : *p) names.push_back(pass->name());
  EXPECT_EQ(names.front(), "bind-params");
  EXPECT_THAT(names, ::testing::Contains("fuse-ops"));
  EXPECT_THAT(names, ::testing::Not(::testing::Contains("dispatch-blas")));  // our own kernels only
  EXPECT_EQ(names.back(), "remove-unused");
  absl::StatusOr<std::vector<std::unique_ptr<Pass>>> blas = ParsePipeline("blas");
  ASSERT_TRUE(blas.ok());
  bool dispatches = false;
  for (const auto& pass : *blas) dispatches |= pass->name() == "dispatch-blas";
  EXPECT_TRUE(dispatches);
  EXPECT_FALSE(ParsePipeline("default{x=1}").ok());
}

TEST(PassInfrastructure, ErrorsNameTheKnownPassesAndOptions) {
  absl::StatusOr<std::vector<std::unique_ptr<Pass>>> p = ParsePipeline("legalize,fuse-opz");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()),
              HasSubstr("unknown pass 'fuse-opz'; known passes: alter-op-layout, apply-tuning-records, bind-params"));
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("named pipelines: O0, blas, default"));
  p = ParsePipeline("fuse-ops{depth=3}");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("pass fuse-ops has no option 'depth'; options: max-depth"));
  p = ParsePipeline("fuse-ops{max-depth=three}");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("option max-depth must be int, got 'three'"));
  p = ParsePipeline("fuse-ops{max-depth=3");
  EXPECT_FALSE(p.ok());
  EXPECT_TRUE(ParsePipeline(" legalize , fuse-ops{max-depth=3} ,fuse-tir ").ok());
  EXPECT_THAT(PassRegistry::Global().Describe(), HasSubstr("| `max-depth` | int | `32` |"));
}

TEST(PassInfrastructure, ReferenceDocIsInSyncWithTheRegistry) {
  absl::Status s = testing::CheckGolden(
      "docs/passes_reference.md",
      absl::StrCat("# Pass reference\n\nGenerated from the registry (`opt --list-passes`); ",
                   "//passes:passes_test keeps it in sync.\n\n", PassRegistry::Global().Describe()));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(PassInfrastructure, PrintAfterAndTiming) {
  IRModule mod = ParseCase("ewise_fma/seed_ewise.py");
  std::ostringstream log;
  PipelineOptions options;
  options.log = &log;
  options.print_after = {"remove-unused"};
  options.timing = true;
  ASSERT_TRUE(RunPipeline(mod, *ParsePipeline("ewise-fma,remove-unused"), options).ok());
  EXPECT_THAT(log.str(), HasSubstr("pass ewise-fma: "));
  EXPECT_THAT(log.str(), HasSubstr("# IR after remove-unused"));
  EXPECT_THAT(log.str(), ::testing::Not(HasSubstr("# IR after ewise-fma")));
}

/*! \brief A pass that breaks the module: the pipeline names it. */
class BreakingPass : public Pass {
 public:
  std::string name() const override { return "break-things"; }
  std::string description() const override { return "test only"; }
  absl::StatusOr<IRModule> Run(const IRModule& mod) override {
    IRModule out = mod;
    out.Remove("relu0");  // main still calls it
    return out;
  }
};

TEST(PassInfrastructure, VerifierRunsAfterEveryPass) {
  absl::StatusOr<IRModule> mod = ParseTVMScript(*ReadFile("testdata/parse/inputs/e2e_my_module.py"), "m.py");
  ASSERT_TRUE(mod.ok());
  std::vector<std::unique_ptr<Pass>> passes;
  passes.push_back(std::make_unique<BreakingPass>());
  absl::StatusOr<IRModule> out = RunPipeline(*mod, passes);
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(
      std::string(out.status().message()),
      HasSubstr(
          "pass break-things produced an ill-formed module: in function @main, binding lv1: reference to @relu0"));
}

TEST(PatternLanguage, MatchesThroughBindingsAndAlternatives) {
  IRModule mod = ParseCase("ewise_fma/seed_ewise.py");
  relax::Function main = mod.LookupFunction("main");
  const auto& bindings = main->body->blocks[0]->bindings;
  LookupFn lookup = [&](const relax::Var& v) -> std::optional<relax::Expr> {
    for (const auto& b : bindings) {
      if (b->var.same_as(v)) return b->value;
    }
    return std::nullopt;
  };
  Pattern a = Wildcard(), c = IsVar();
  Pattern mul = IsOp("multiply")({a, Wildcard()});
  std::optional<Match> m = MatchPattern(IsOp("add")({mul, c}), bindings[1]->value, lookup);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(PrintExpr((*m)[a]), "x");
  EXPECT_EQ(PrintExpr((*m)[c]), "y");
  EXPECT_FALSE(MatchPattern(IsOp("add")({IsConst(), Wildcard()}), bindings[1]->value, lookup).has_value());
  EXPECT_TRUE(MatchPattern(IsOp("add")({IsConst() | mul, Wildcard()}), bindings[1]->value, lookup).has_value());
  EXPECT_FALSE(MatchPattern(IsOp("subtract")({Wildcard(), Wildcard()}) | IsOp("nn.relu"), bindings[1]->value, lookup));
  // call_tir patterns.
  absl::StatusOr<IRModule> tir = ParseTVMScript(*ReadFile("testdata/parse/inputs/e2e_my_module.py"), "t.py");
  const auto& tb = tir->LookupFunction("main")->body->blocks[0]->bindings;
  LookupFn tlookup = [&](const relax::Var& v) -> std::optional<relax::Expr> {
    for (const auto& b : tb) {
      if (b->var.same_as(v)) return b->value;
    }
    return std::nullopt;
  };
  EXPECT_TRUE(MatchPattern(IsCallTIR("relu0")({IsCallTIR("linear0")}), tb[1]->value, tlookup).has_value());
  EXPECT_FALSE(MatchPattern(IsCallTIR("linear1"), tb[1]->value, tlookup).has_value());
}

}  // namespace
}  // namespace passes
}  // namespace mlc
