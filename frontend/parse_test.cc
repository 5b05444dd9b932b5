/*! \file parse_test.cc
 *  \brief The TVMScript parser on every module of the seed chapters: each parses, prints like
 *         its golden, printing is a fixed point, and the Protobuf round trip keeps the text.
 *         Plus error reporting and a mutation fuzz test (no input crashes or hangs the parser).
 */
#include <dirent.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "frontend/tvmscript.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/graph/block_builder.h"
#include "ir/graph/printer.h"
#include "ir/graph/serialize.h"
#include "ir/graph/structural_equal.h"
#include "ir/te/call_te.h"
#include "ir/testing/golden.h"
#include "ir/testing/seed_modules.h"
#include "support/file_util.h"

namespace mlc {
namespace {

using ::testing::HasSubstr;

constexpr char kInputs[] = "testdata/parse/inputs";

std::vector<std::string> InputNames() {
  std::vector<std::string> names;
  DIR* dir = opendir(kInputs);
  if (dir == nullptr) return names;
  while (dirent* e = readdir(dir)) {
    std::string name = e->d_name;
    if (name.size() > 3 && name.substr(name.size() - 3) == ".py") names.push_back(name.substr(0, name.size() - 3));
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

std::optional<std::vector<TensorData>> ConstantsFor(const std::string& name) {
  return testing::ConstantsFromManifest(absl::StrCat(kInputs, "/", name, ".constants"));
}

TEST(ParseSeeds, EveryInputParsesAndPrintsLikeItsGolden) {
  std::vector<std::string> names = InputNames();
  ASSERT_GE(names.size(), 28u) << "inputs missing from the test's data";
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    std::string path = absl::StrCat(kInputs, "/", name, ".py");
    ParseOptions options;
    options.constants = ConstantsFor(name);
    absl::StatusOr<IRModule> mod = ParseTVMScript(*ReadFile(path), path, options);
    ASSERT_TRUE(mod.ok()) << mod.status();
    std::string printed = PrintModule(*mod);
    absl::Status golden = testing::CheckGolden(absl::StrCat("testdata/parse/golden/", name, ".py"), printed);
    EXPECT_TRUE(golden.ok()) << golden;

    // print is a fixed point of parse . print.
    absl::StatusOr<IRModule> reparsed = ParseTVMScript(printed, absl::StrCat(name, " (printed)"), options);
    ASSERT_TRUE(reparsed.ok()) << reparsed.status();
    EXPECT_EQ(PrintModule(*reparsed), printed);
    absl::Status eq = CheckStructuralEqual(*mod, *reparsed);
    EXPECT_TRUE(eq.ok()) << eq;

    // parse -> save -> load -> print gives the same text.
    absl::StatusOr<IRModule> loaded = DeserializeModule(SerializeModule(*mod));
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    EXPECT_EQ(PrintModule(*loaded), printed);
  }
}

TEST(ParseSeeds, ShowMetaRoundTripsConstants) {
  std::string name = "integ_mlp_topi_v2";
  std::string path = absl::StrCat(kInputs, "/", name, ".py");
  ParseOptions options;
  options.constants = ConstantsFor(name);
  absl::StatusOr<IRModule> mod = ParseTVMScript(*ReadFile(path), path, options);
  ASSERT_TRUE(mod.ok()) << mod.status();
  PrintOptions show;
  show.show_meta = true;
  std::string text = PrintModule(*mod, show);
  // The text carries its own constants now: no sidecar needed.
  absl::StatusOr<IRModule> reparsed = ParseTVMScript(text, "with_meta.py");
  ASSERT_TRUE(reparsed.ok()) << reparsed.status();
  EXPECT_TRUE(StructuralEqual(*mod, *reparsed));
  // And the section alone works as a sidecar file.
  absl::StatusOr<std::vector<TensorData>> constants = ParseMetadata(text, "with_meta.py");
  ASSERT_TRUE(constants.ok());
  EXPECT_EQ(constants->size(), 4u);
}

TEST(ParseSeeds, MatchesTheModulesBuiltWithTheIrApi) {
  // The hand-built seed modules print as TVMScript that parses back to the same module.
  for (const auto& [name, mod] : testing::AllSeedModules()) {
    SCOPED_TRACE(name);
    absl::StatusOr<IRModule> parsed = ParseTVMScript(PrintModule(mod), name);
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    absl::Status eq = CheckStructuralEqual(mod, *parsed);
    EXPECT_TRUE(eq.ok()) << eq;
  }
  // The seed text of MyModule parses to the module built by hand.
  std::string path = absl::StrCat(kInputs, "/e2e_my_module.py");
  absl::StatusOr<IRModule> parsed = ParseTVMScript(*ReadFile(path), path);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  absl::Status eq = CheckStructuralEqual(testing::MyModule(), *parsed);
  EXPECT_TRUE(eq.ok()) << eq;
}

TEST(ParseSeeds, BlockBuilderExampleEqualsTheSeedText) {
  // The seeds' bb.emit_te(te_matmul) / bb.emit_te(te_relu) example, built in C++ ...
  relax::Var A = relax::MakeVar("A", relax::TensorSInfo({128, 128}, DataType::Float32()));
  relax::Var B = relax::MakeVar("B", relax::TensorSInfo({128, 128}, DataType::Float32()));
  te::FTE te_matmul = [](const std::vector<te::Tensor>& t) -> absl::StatusOr<te::Tensor> {
    te::ReduceAxis k = te::MakeReduceAxis(t[0].shape()[1], "k");
    return te::Compute({t[0].shape()[0], t[1].shape()[1]},
                       [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
                         return te::Sum(tir::operator*(t[0]({i[0], k}), t[1]({k, i[1]})), {k});
                       },
                       "matmul", {"i", "j"});
  };
  te::FTE te_relu = [](const std::vector<te::Tensor>& t) -> absl::StatusOr<te::Tensor> {
    return te::Compute(
        t[0].shape(),
        [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
          return tir::Max(t[0](std::vector<tir::PrimExpr>(i.begin(), i.end())), tir::F32(0));
        },
        "relu");
  };
  relax::BlockBuilder bb;
  ASSERT_TRUE(bb.BeginFunction("main").ok());
  ASSERT_TRUE(bb.BeginDataflow().ok());
  relax::Var c = *te::EmitTE(&bb, "te_matmul", te_matmul, {A, B});
  relax::Var d = *te::EmitTE(&bb, "te_relu", te_relu, {c});
  relax::Var r = *bb.EmitOutput(d);
  ASSERT_TRUE(bb.EndDataflow().ok());
  ASSERT_TRUE(bb.EmitFuncOutput(r, std::vector<relax::Var>{A, B}).ok());
  // ... equals the module the seed prints for it.
  std::string path = absl::StrCat(kInputs, "/integ_block_builder_v2.py");
  absl::StatusOr<IRModule> parsed = ParseTVMScript(*ReadFile(path), path);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  absl::Status eq = CheckStructuralEqual(bb.Get(), *parsed);
  EXPECT_TRUE(eq.ok()) << eq;
}

// ---- Errors: position, what was found, what was expected; never a crash.

std::string ErrorOf(const std::string& text) {
  absl::StatusOr<IRModule> mod = ParseTVMScript(text, "bad.py");
  return mod.ok() ? "<parsed>" : std::string(mod.status().message());
}

constexpr char kGood[] = R"(@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 4), dtype="float32"), y: R.Tensor((3, 4), dtype="float32")) -> R.Tensor((3, 4), dtype="float32"):
        with R.dataflow():
            lv0 = R.multiply(x, y)
            gv0 = R.add(lv0, y)
            R.output(gv0)
        return gv0
)";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  size_t pos = text.find(from);
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

TEST(ParseErrors, NameTheFileLineColumnAndWhatWasExpected) {
  EXPECT_EQ(ErrorOf(kGood), "<parsed>");
  EXPECT_EQ(ErrorOf(Replace(kGood, "            gv0 = R.add", "              gv0 = R.add")),
            "bad.py:7:15: unexpected indent");
  EXPECT_EQ(ErrorOf(Replace(kGood, "            R.output(gv0)", "          R.output(gv0)")),
            "bad.py:8:11: unindent does not match any outer indentation level");
  EXPECT_EQ(ErrorOf(Replace(kGood, "R.multiply(x, y)", "R.multiplyy(x, y)")),
            "bad.py:6:19: unknown operator R.multiplyy");
  EXPECT_EQ(ErrorOf(Replace(kGood, "R.multiply(x, y)", "R.multiply(x)")),
            "bad.py:6:19: operator multiply takes 2 arguments, got 1");
  EXPECT_EQ(ErrorOf(Replace(kGood, "R.multiply(x, y)", "R.multiply(x, z)")), "bad.py:6:33: undefined variable 'z'");
  EXPECT_EQ(ErrorOf(Replace(kGood, "y: R.Tensor((3, 4)", "y: R.Tensor((5, 4)")),
            "bad.py:6:19: multiply: shapes (3, 4) and (5, 4) cannot be broadcast together");
  EXPECT_EQ(ErrorOf(Replace(kGood, "dtype=\"float32\"), y", "dtype=\"float32), y")),
            "bad.py:4:123: unterminated string literal (end of line inside the string)");
  EXPECT_EQ(ErrorOf(Replace(kGood, "lv0 = R.multiply(x, y)", "lv0 = R.multiply(x, y))")), "bad.py:6:35: unmatched ')'");
}

TEST(ParseErrors, TirMistakes) {
  const std::string prim = R"(@T.prim_func
def f(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32")):
    for i, j in T.grid(4, 4):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            B[vi, vj] = T.max(A[vi, vj], T.float32(0))
)";
  EXPECT_EQ(ErrorOf(prim), "<parsed>");
  EXPECT_EQ(ErrorOf(Replace(prim, "T.max(", "T.maxx(")), "bad.py:6:25: unknown function T.maxx");
  EXPECT_EQ(ErrorOf(Replace(prim, "T.max(A[vi, vj], T.float32(0))", "T.max(A[vi], T.float32(0))")),
            "bad.py:6:31: load from A with 1 indices, but it has 2 dimensions");
  EXPECT_EQ(ErrorOf(Replace(prim, "T.axis.remap(\"SS\", [i, j])", "T.axis.remap(\"SS\", [i])")),
            "bad.py:5:22: T.axis.remap(\"SS\") binds 2 variables, but 2 names and 1 values are given");
  EXPECT_EQ(ErrorOf(Replace(prim, "T.Buffer((4, 4), \"float32\"), B", "T.Buffer((4, 4), \"float33\"), B")),
            "bad.py:2:27: unknown dtype \"float33\" (expected float16/32/64, bfloat16, int8..int64, uint8..uint64, "
            "bool or void)");
  EXPECT_EQ(ErrorOf(Replace(prim, "T.float32(0))", "T.float32(0), 1)")),
            "bad.py:6:25: T.max takes 2 positional arguments, got 3");
  EXPECT_THAT(ErrorOf(Replace(prim, "A[vi, vj]", "C[vi, vj]")), HasSubstr("bad.py:6:31: undefined buffer 'C'"));
}

TEST(ParseErrors, MetadataWithoutConstants) {
  std::string text = Replace(kGood, "R.multiply(x, y)", "R.multiply(x, metadata[\"relax.expr.Constant\"][0])");
  EXPECT_THAT(ErrorOf(text), HasSubstr("bad.py:6:33: metadata[\"relax.expr.Constant\"][0] is referenced but the module "
                                       "has no metadata section"));
}

TEST(ParseErrors, AFunctionThatCallsItselfNeedsAReturnAnnotation) {
  const std::string recursive = R"(@I.ir_module
class M:
    @R.function(private=True)
    def halve(x: R.Tensor((), "float32")) -> R.Tensor((), "float32"):
        cls = M
        with R.dataflow():
            big = R.greater(x, R.const(1, "float32"))
            half = R.multiply(x, R.const(0.5, "float32"))
            R.output(big, half)
        if big:
            r: R.Tensor((), "float32") = cls.halve(half)
        else:
            r: R.Tensor((), "float32") = x
        return r
)";
  EXPECT_EQ(ErrorOf(recursive), "<parsed>");
  EXPECT_EQ(ErrorOf(Replace(recursive, " -> R.Tensor((), \"float32\"):", ":")),
            "bad.py:4:5: function halve calls itself (directly or through others) and needs a return annotation");
}

TEST(ParseErrors, DeepNestingIsAnErrorNotACrash) {
  std::string deep = std::string(5000, '(') + "1" + std::string(5000, ')');
  std::string text = Replace(kGood, "R.multiply(x, y)", deep);
  EXPECT_THAT(ErrorOf(text), HasSubstr("nested too deeply"));
}

TEST(ParseErrors, LongOperatorChainsAreRefusedByDepth) {
  // a + a + ... builds its tree in a loop, not by recursion: the depth limit still applies.
  std::string chain = "x";
  for (int i = 0; i < 5000; ++i) chain += " + x";
  std::string text = Replace(kGood, "R.multiply(x, y)", chain);
  EXPECT_THAT(ErrorOf(text), HasSubstr("nested more than 2000 levels deep"));
}

TEST(ParseSpellings, CallTirTakesTheOutputStructInfoPositionally) {
  // Current TVM prints R.call_tir(cls.f, (x,), R.Tensor(...)); older text says out_sinfo=.
  const std::string module = R"(@I.ir_module
class M:
    @T.prim_func
    def add_one(X: T.Buffer((4,), "float32"), Y: T.Buffer((4,), "float32")):
        for i in T.grid(4):
            with T.block("Y"):
                vi = T.axis.remap("S", [i])
                Y[vi] = X[vi] + T.float32(1)

    @R.function
    def main(x: R.Tensor((4,), "float32")):
        cls = M
        with R.dataflow():
            y = R.call_tir(cls.add_one, (x,), OUT)
            R.output(y)
        return y
)";
  absl::StatusOr<IRModule> keyword =
      ParseTVMScript(Replace(module, "OUT", "out_sinfo=R.Tensor((4,), dtype=\"float32\")"), "k.py");
  absl::StatusOr<IRModule> positional =
      ParseTVMScript(Replace(module, "OUT", "R.Tensor((4,), dtype=\"float32\")"), "p.py");
  absl::StatusOr<IRModule> shape = ParseTVMScript(Replace(module, "OUT", "(4,), dtype=\"float32\""), "s.py");
  ASSERT_TRUE(keyword.ok()) << keyword.status();
  ASSERT_TRUE(positional.ok()) << positional.status();
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_TRUE(StructuralEqual(*keyword, *positional));
  EXPECT_TRUE(StructuralEqual(*keyword, *shape));
}

TEST(ParseSpellings, CallPackedIsADestinationPassingCallOfItsResult) {
  // TVM's R.call_packed returns its result; ours allocates it from sinfo_args and passes it.
  const std::string module = R"(@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((4,), "float32"), w: R.Tensor((4,), "float32")):
        y = CALL
        return y
)";
  absl::StatusOr<IRModule> packed = ParseTVMScript(
      Replace(module, "CALL", "R.call_packed(\"env.mul\", x, w, sinfo_args=R.Tensor((4,), dtype=\"float32\"))"),
      "p.py");
  absl::StatusOr<IRModule> dps = ParseTVMScript(
      Replace(module, "CALL", "R.call_dps_packed(\"env.mul\", (x, w), out_sinfo=R.Tensor((4,), dtype=\"float32\"))"),
      "d.py");
  ASSERT_TRUE(packed.ok()) << packed.status();
  ASSERT_TRUE(dps.ok()) << dps.status();
  EXPECT_TRUE(StructuralEqual(*packed, *dps));
  absl::StatusOr<IRModule> unknown =
      ParseTVMScript(Replace(module, "CALL", "R.call_packed(\"env.mul\", x, w)"), "u.py");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("u.py:5:13:"), std::string::npos) << unknown.status();
  EXPECT_NE(unknown.status().message().find("needs sinfo_args"), std::string::npos) << unknown.status();
}

TEST(ParseSpellings, NonFiniteAttributeValuesAreSpelledAsPythonFloatCalls) {
  // A max pool's border is -inf; Python's repr "-inf" is not an expression, float("-inf") is.
  const std::string module = R"(@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((1, 3, 4, 4), dtype="float32")):
        with R.dataflow():
            gv = R.nn.pad(x, pad_width=[0, 0, 0, 0, 1, 1, 1, 1], pad_value=VALUE, pad_mode="constant")
            R.output(gv)
        return gv
)";
  for (const char* value : {"float(\"-inf\")", "float(\"inf\")", "float(\"nan\")"}) {
    absl::StatusOr<IRModule> parsed = ParseTVMScript(Replace(module, "VALUE", value), "f.py");
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    const std::string printed = PrintModule(*parsed);
    EXPECT_THAT(printed, HasSubstr(absl::StrCat("pad_value=", value))) << printed;
    absl::StatusOr<IRModule> reparsed = ParseTVMScript(printed, "printed.py");
    ASSERT_TRUE(reparsed.ok()) << reparsed.status();
    EXPECT_EQ(PrintModule(*reparsed), printed);
  }
  EXPECT_EQ(ErrorOf(Replace(module, "VALUE", "float(\"big\")")), "bad.py:6:76: float(\"big\") is not inf, -inf or nan");
}

TEST(ParseFuzz, MutationsParseOrFailCleanly) {
  // Deletions, duplications and byte flips of every seed input: each must either parse or
  // return an error with a position; none may crash or hang.
  std::vector<std::string> sources;
  for (const std::string& name : InputNames()) sources.push_back(*ReadFile(absl::StrCat(kInputs, "/", name, ".py")));
  sources.push_back(kGood);
  std::mt19937 rng(1234);
  int parsed = 0, rejected = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text = sources[iter % sources.size()];
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      size_t pos = rng() % text.size();
      size_t len = 1 + rng() % std::min<size_t>(16, text.size() - pos);
      switch (rng() % 3) {
        case 0: text.erase(pos, len); break;
        case 1: text.insert(pos, text.substr(pos, len)); break;
        default: text[pos] = static_cast<char>(rng() % 256);
      }
    }
    ParseOptions options;
    options.constants = std::vector<TensorData>{};
    absl::StatusOr<IRModule> mod = ParseTVMScript(text, "fuzz.py", options);
    if (mod.ok()) {
      ++parsed;
    } else {
      ++rejected;
      ASSERT_THAT(std::string(mod.status().message()), HasSubstr("fuzz.py")) << "error without a location";
    }
  }
  EXPECT_GT(rejected, 0);
  std::cout << "fuzz: " << parsed << " parsed, " << rejected << " rejected\n";
}

}  // namespace
}  // namespace mlc
