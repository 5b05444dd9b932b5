/*! \file passes_test.cc
 *  \brief Every pass on golden before/after files (testdata/passes), the round trip of each
 *         result, the pattern language, and the pass infrastructure's errors.
 */
#include <dirent.h>

#include <algorithm>
#include <random>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "frontend/tvmscript.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "support/file_util.h"
#include "ir/op.h"
#include "ir/printer.h"
#include "ir/structural_equal.h"
#include "ir/testing/golden.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

using ::testing::HasSubstr;

constexpr char kInputs[] = "testdata/passes/inputs";

std::vector<std::string> Cases() {
  std::vector<std::string> names;
  if (DIR* dir = opendir(kInputs)) {
    while (dirent* e = readdir(dir)) {
      std::string n = e->d_name;
      if (n.size() > 3 && n.substr(n.size() - 3) == ".py") names.push_back(n.substr(0, n.size() - 3));
    }
    closedir(dir);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<std::vector<TensorData>> Constants(const std::string& name) {
  absl::StatusOr<std::string> manifest = ReadFile(absl::StrCat(kInputs, "/", name, ".constants"));
  if (!manifest.ok()) return std::nullopt;
  std::vector<TensorData> out;
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1, 1);
  for (absl::string_view line : absl::StrSplit(*manifest, '\n', absl::SkipEmpty())) {
    std::vector<std::string> parts = absl::StrSplit(line, ' ');
    std::vector<int64_t> shape;
    for (absl::string_view d : absl::StrSplit(parts[1], ',')) {
      int64_t v = 0;
      (void)absl::SimpleAtoi(d, &v);
      shape.push_back(v);
    }
    TensorData t(DataType::Float32(), shape);
    for (int64_t i = 0; i < t.NumElements(); ++i) static_cast<float*>(t.mutable_data())[i] = dist(rng);
    out.push_back(t);
  }
  return out;
}

TEST(PassGoldens, EachCaseMatchesItsGoldenAndRoundTrips) {
  std::vector<std::string> cases = Cases();
  ASSERT_GE(cases.size(), 13u);
  for (const std::string& name : cases) {
    SCOPED_TRACE(name);
    std::string path = absl::StrCat(kInputs, "/", name, ".py");
    std::string text = *ReadFile(path);
    std::string first_line = text.substr(0, text.find('\n'));
    ASSERT_EQ(first_line.rfind("# RUN: --passes=", 0), 0u) << "inputs start with # RUN: --passes=...";
    std::string pipeline = first_line.substr(std::string("# RUN: --passes=").size());
    ParseOptions options;
    options.constants = Constants(name);
    absl::StatusOr<IRModule> mod = ParseTVMScript(text, path, options);
    ASSERT_TRUE(mod.ok()) << mod.status();
    absl::StatusOr<std::vector<std::unique_ptr<Pass>>> passes = ParsePipeline(pipeline);
    ASSERT_TRUE(passes.ok()) << passes.status();
    absl::StatusOr<IRModule> result = RunPipeline(*mod, *passes);
    ASSERT_TRUE(result.ok()) << result.status();
    absl::Status golden = testing::CheckGolden(absl::StrCat("testdata/passes/golden/", name, ".py"), PrintModule(*result));
    EXPECT_TRUE(golden.ok()) << golden;
    // Round trip: the printed result (with its constants) parses back to the same module.
    PrintOptions with_meta;
    with_meta.show_meta = true;
    absl::StatusOr<IRModule> reparsed = ParseTVMScript(PrintModule(*result, with_meta), "result.py");
    ASSERT_TRUE(reparsed.ok()) << reparsed.status();
    absl::Status eq = CheckStructuralEqual(*result, *reparsed);
    EXPECT_TRUE(eq.ok()) << eq;
  }
}

TEST(Passes, FoldConstantComputesTheValues) {
  absl::StatusOr<IRModule> mod = ParseTVMScript(*ReadFile(absl::StrCat(kInputs, "/fold_constant.py")), "m.py");
  ASSERT_TRUE(mod.ok());
  absl::StatusOr<IRModule> out = RunPipeline(*mod, *ParsePipeline("fold-constant,remove-unused"));
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<relax::Expr> constants = CollectConstants(*out);
  ASSERT_EQ(constants.size(), 2u);
  EXPECT_EQ(constants[0].as<relax::ConstantNode>()->data.data_as<float>()[0], 3.5f);  // 1.5 + 2.0
  EXPECT_EQ(constants[1].as<relax::ConstantNode>()->data.data_as<float>()[0], 0.0f);  // relu(3.5 * -2)
}

TEST(Passes, UnchangedModulesStayTheSameObjects) {
  absl::StatusOr<IRModule> mod = ParseTVMScript(*ReadFile(absl::StrCat(kInputs, "/remove_unused.py")), "m.py");
  ASSERT_TRUE(mod.ok());
  for (const char* name : {"ewise-fma", "canonicalize-bindings", "fold-constant"}) {
    absl::StatusOr<std::unique_ptr<Pass>> pass = PassRegistry::Global().Create(name);
    ASSERT_TRUE(pass.ok());
    absl::StatusOr<IRModule> out = (*pass)->Run(*mod);
    ASSERT_TRUE(out.ok()) << name;
    EXPECT_TRUE(out->Lookup("main").same_as(mod->Lookup("main"))) << name << " changed a module it had nothing to do in";
  }
}

TEST(PassInfrastructure, ErrorsNameTheKnownPassesAndOptions) {
  absl::StatusOr<std::vector<std::unique_ptr<Pass>>> p = ParsePipeline("legalize,fuse-opz");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("unknown pass 'fuse-opz'; known passes: bind-params"));
  p = ParsePipeline("fuse-ops{depth=3}");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("pass fuse-ops has no option 'depth'; options: max-depth"));
  p = ParsePipeline("fuse-ops{max-depth=three}");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(std::string(p.status().message()), HasSubstr("option max-depth must be int, got 'three'"));
  p = ParsePipeline("fuse-ops{max-depth=3");
  EXPECT_FALSE(p.ok());
  EXPECT_TRUE(ParsePipeline(" legalize , fuse-ops{max-depth=3} ,fuse-tir ").ok());
  EXPECT_THAT(PassRegistry::Global().Describe(), HasSubstr("| `max-depth` | int | `16` |"));
}

TEST(PassInfrastructure, ReferenceDocIsInSyncWithTheRegistry) {
  absl::Status s = testing::CheckGolden("docs/passes_reference.md",
                                        absl::StrCat("# Pass reference\n\nGenerated from the registry (`opt --list-passes`); ",
                                                     "//passes:passes_test keeps it in sync.\n\n",
                                                     PassRegistry::Global().Describe()));
  EXPECT_TRUE(s.ok()) << s;
}

TEST(PassInfrastructure, PrintAfterAndTiming) {
  absl::StatusOr<IRModule> mod = ParseTVMScript(*ReadFile(absl::StrCat(kInputs, "/ewise_fma.py")), "m.py");
  ASSERT_TRUE(mod.ok());
  std::ostringstream log;
  PipelineOptions options;
  options.log = &log;
  options.print_after = {"remove-unused"};
  options.timing = true;
  ASSERT_TRUE(RunPipeline(*mod, *ParsePipeline("ewise-fma,remove-unused"), options).ok());
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
  EXPECT_THAT(std::string(out.status().message()),
              HasSubstr("pass break-things produced an ill-formed module: in function @main, binding lv1: reference to @relu0"));
}

TEST(PatternLanguage, MatchesThroughBindingsAndAlternatives) {
  absl::StatusOr<IRModule> mod = ParseTVMScript(*ReadFile(absl::StrCat(kInputs, "/ewise_fma.py")), "m.py");
  ASSERT_TRUE(mod.ok());
  relax::Function main = mod->LookupFunction("main");
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
