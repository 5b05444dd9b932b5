/*! \file symbolic_shapes_test.cc
 *  \brief One compiled model for every batch size: the seeds' MLP with a symbolic batch n
 *         (hand-written PrimFuncs with T.match_buffer, and the operator form through the
 *         default pipeline) parses, prints, round-trips, builds once and runs at n = 1, 3
 *         and 64 against a double-precision reference; wrong shapes and undefined or
 *         unbindable shape variables get messages that say where.
 */
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "codegen/build.h"
#include "frontend/tvmscript.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/graph/block_builder.h"
#include "ir/graph/op.h"
#include "ir/graph/printer.h"
#include "ir/graph/serialize.h"
#include "ir/graph/shape_bounds.h"
#include "ir/graph/structural_equal.h"
#include "ir/graph/verifier.h"
#include "ir/tir/prim_expr_ops.h"
#include "passes/pass.h"
#include "support/file_util.h"
#include "tools/testing/kernel_harness.h"
#include "tools/testing/kernel_main.h"
#include "vm/executable_format.h"
#include "vm/virtual_machine.h"

namespace mlc {
namespace {

using ::testing::HasSubstr;
using testing_util::ExpectClose;
using testing_util::F;
using testing_util::Random;
using vm::NDArray;
using vm::Value;

constexpr char kCallTirMlp[] = "testdata/symbolic/mlp_dynamic_batch.py";
constexpr char kOperatorMlp[] = "testdata/symbolic/mlp_high_level_dynamic_batch.py";
constexpr char kMatchCast[] = "testdata/symbolic/match_cast.py";

IRModule Parse(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  EXPECT_TRUE(text.ok()) << path;
  absl::StatusOr<IRModule> mod = ParseTVMScript(*text, path);
  EXPECT_TRUE(mod.ok()) << mod.status();
  return mod.ok() ? *mod : IRModule();
}

absl::Status ParseError(const std::string& text) { return ParseTVMScript(text, "inline.py").status(); }

/*! \brief x @ w0.T + b0 -> relu -> @ w1.T + b1, in double. */
std::vector<double> MlpReference(const NDArray& x, const NDArray& w0, const NDArray& b0, const NDArray& w1,
                                 const NDArray& b1) {
  int64_t n = x.shape()[0], k = x.shape()[1], h = w0.shape()[0], m = w1.shape()[0];
  std::vector<double> hidden(h), out(n * m);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < h; ++j) {
      double acc = F(b0)[j];
      for (int64_t p = 0; p < k; ++p) acc += static_cast<double>(F(x)[i * k + p]) * F(w0)[j * k + p];
      hidden[j] = std::max(acc, 0.0);
    }
    for (int64_t j = 0; j < m; ++j) {
      double acc = F(b1)[j];
      for (int64_t p = 0; p < h; ++p) acc += hidden[p] * F(w1)[j * h + p];
      out[i * m + j] = acc;
    }
  }
  return out;
}

std::unique_ptr<vm::VirtualMachine> BuildWith(const IRModule& mod, const std::string& pipeline) {
  absl::StatusOr<std::vector<std::unique_ptr<passes::Pass>>> passes = passes::ParsePipeline(pipeline);
  EXPECT_TRUE(passes.ok()) << passes.status();
  absl::StatusOr<IRModule> lowered = passes::RunPipeline(mod, *passes);
  EXPECT_TRUE(lowered.ok()) << lowered.status();
  if (!lowered.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm = testing_util::Compile(*lowered);
  EXPECT_TRUE(vm.ok()) << vm.status();
  return vm.ok() ? std::move(*vm) : nullptr;
}

/*! \brief Inline TVMScript parsed and built with the default pipeline (nullptr on failure, reported). */
std::unique_ptr<vm::VirtualMachine> BuildText(const char* text) {
  absl::StatusOr<IRModule> mod = ParseTVMScript(text, "inline.py");
  EXPECT_TRUE(mod.ok()) << mod.status();
  return mod.ok() ? BuildWith(*mod, "default") : nullptr;
}

/*! \brief One executable, called at several batch sizes. */
void ExpectMlpAtEveryBatch(vm::VirtualMachine* vm) {
  std::mt19937 rng(7);
  NDArray w0 = Random({128, 784}, &rng, -0.05f, 0.05f), b0 = Random({128}, &rng);
  NDArray w1 = Random({10, 128}, &rng, -0.1f, 0.1f), b1 = Random({10}, &rng);
  for (int64_t n : {1, 3, 64}) {
    SCOPED_TRACE(absl::StrCat("n = ", n));
    NDArray x = Random({n, 784}, &rng, 0, 1);
    absl::StatusOr<Value> out = vm->Invoke("main", {x, w0, b0, w1, b1});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(out->tensor().shape(), (std::vector<int64_t>{n, 10}));
    ExpectClose(out->tensor(), MlpReference(x, w0, b0, w1, b1), 1e-4, 1e-4);
  }
}

/*! \brief The printed module parses back structurally equal (same hash), and `.irpb` keeps it. */
void ExpectRoundTrips(const IRModule& mod) {
  std::string printed = PrintModule(mod);
  absl::StatusOr<IRModule> again = ParseTVMScript(printed, "printed.py");
  ASSERT_TRUE(again.ok()) << again.status() << "\n" << printed;
  EXPECT_TRUE(CheckStructuralEqual(mod, *again).ok()) << CheckStructuralEqual(mod, *again);
  EXPECT_EQ(StructuralHash(mod), StructuralHash(*again));
  absl::StatusOr<IRModule> loaded = DeserializeModule(SerializeModule(mod));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(PrintModule(*loaded), printed);
}

TEST(SymbolicShapes, PrintedModulesParseBackEqual) {
  for (const char* path : {kCallTirMlp, kOperatorMlp}) {
    SCOPED_TRACE(path);
    IRModule mod = Parse(path);
    std::string printed = PrintModule(mod);
    EXPECT_THAT(printed, HasSubstr("R.Tensor((\"n\", 784), dtype=\"float32\")"));
    EXPECT_THAT(printed, HasSubstr("n = T.int64()"));
    ExpectRoundTrips(mod);
  }
}

TEST(SymbolicShapes, PrimFuncsPrintTheirShapeVariablesAsMatchBuffer) {
  std::string printed = PrintModule(Parse(kCallTirMlp));
  EXPECT_THAT(printed, HasSubstr("def relu0(var_X: T.handle, var_Y: T.handle):"));
  EXPECT_THAT(printed, HasSubstr("X = T.match_buffer(var_X, (n, 128))"));
  EXPECT_THAT(printed, HasSubstr("Y = T.alloc_buffer((m, 10))"));
}

TEST(SymbolicShapes, CallTirMlpBuildsOnceAndRunsAtEveryBatch) {
  IRModule mod = Parse(kCallTirMlp);
  for (const char* pipeline : {"O0", "default"}) {
    SCOPED_TRACE(pipeline);
    std::unique_ptr<vm::VirtualMachine> vm = BuildWith(mod, pipeline);
    ASSERT_NE(vm, nullptr);
    ExpectMlpAtEveryBatch(vm.get());
  }
}

TEST(SymbolicShapes, OperatorMlpInfersLegalizesFusesAndRunsAtEveryBatch) {
  IRModule mod = Parse(kOperatorMlp);
  // Shape inference carried n through matmul, add and relu.
  std::string printed = PrintModule(mod);
  EXPECT_THAT(printed, HasSubstr("lv3: R.Tensor((n, 128), dtype=\"float32\") = R.nn.relu(lv2)"));
  for (const char* pipeline : {"O0", "default"}) {
    SCOPED_TRACE(pipeline);
    std::unique_ptr<vm::VirtualMachine> vm = BuildWith(mod, pipeline);
    ASSERT_NE(vm, nullptr);
    ExpectMlpAtEveryBatch(vm.get());
  }
}

TEST(SymbolicShapes, WrongInputShapeNamesTheParameterDimensionAndBothValues) {
  std::unique_ptr<vm::VirtualMachine> vm = BuildWith(Parse(kCallTirMlp), "default");
  ASSERT_NE(vm, nullptr);
  std::mt19937 rng(1);
  absl::StatusOr<Value> out = vm->Invoke("main", {Random({3, 785}, &rng), Random({128, 784}, &rng), Random({128}, &rng),
                                                  Random({10, 128}, &rng), Random({10}, &rng)});
  ASSERT_FALSE(out.ok());
  EXPECT_THAT(std::string(out.status().message()), HasSubstr("argument 0 (x): dimension 1 is 785, expected 784"));
}

TEST(SymbolicShapes, ParamsSharingAVariableMustAgree) {
  const char* text = R"(
@R.function
def main(a: R.Tensor(("n", 4), dtype="float32"), b: R.Tensor(("n", 4), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
    with R.dataflow():
        c = R.add(a, b)
        R.output(c)
    return c
)";
  std::unique_ptr<vm::VirtualMachine> vm = BuildText(text);
  ASSERT_NE(vm, nullptr);
  std::mt19937 rng(2);
  NDArray a = Random({5, 4}, &rng), b = Random({5, 4}, &rng);
  absl::StatusOr<Value> ok = vm->Invoke("main", {a, b});
  ASSERT_TRUE(ok.ok()) << ok.status();
  std::vector<double> want;
  for (int i = 0; i < 20; ++i) want.push_back(static_cast<double>(F(a)[i]) + F(b)[i]);
  ExpectClose(ok->tensor(), want);
  absl::StatusOr<Value> bad = vm->Invoke("main", {a, Random({6, 4}, &rng)});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("argument 1 (b): dimension 0 is 6, expected 5 (n = 5 from argument 0 (a) dimension 0)"));
}

TEST(SymbolicShapes, ShapeExpressionsInSignaturesAndOutputs) {
  // The output's first dimension is 2 * n: evaluated when the VM allocates it.
  const char* text = R"(
@I.ir_module
class Module:
    @T.prim_func
    def stack(a: T.handle, out: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, 3))
        Out = T.match_buffer(out, (n * 2, 3))
        for i, j in T.grid(n * 2, 3):
            with T.block("Out"):
                vi, vj = T.axis.remap("SS", [i, j])
                Out[vi, vj] = A[vi % n, vj]

    @R.function
    def main(a: R.Tensor(("n", 3), dtype="float32")) -> R.Tensor(("n * 2", 3), dtype="float32"):
        n = T.int64()
        cls = Module
        out = R.call_tir(cls.stack, (a,), out_sinfo=R.Tensor((n * 2, 3), dtype="float32"))
        return out
)";
  absl::StatusOr<IRModule> mod = ParseTVMScript(text, "inline.py");
  ASSERT_TRUE(mod.ok()) << mod.status();
  EXPECT_THAT(PrintModule(*mod), HasSubstr("-> R.Tensor((\"n * 2\", 3), dtype=\"float32\")"));
  std::unique_ptr<vm::VirtualMachine> vm = BuildWith(*mod, "default");
  ASSERT_NE(vm, nullptr);
  std::mt19937 rng(3);
  NDArray a = Random({4, 3}, &rng);
  absl::StatusOr<Value> out = vm->Invoke("main", {a});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->tensor().shape(), (std::vector<int64_t>{8, 3}));
  std::vector<double> want;
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 3; ++j) want.push_back(F(a)[(i % 4) * 3 + j]);
  }
  ExpectClose(out->tensor(), want);
}

TEST(SymbolicShapes, ConcatAlongAStaticAxisKeepsTheBatchSymbolic) {
  const char* text = R"(
@R.function
def main(a: R.Tensor(("n", 2), dtype="float32"), b: R.Tensor(("n", 3), dtype="float32")) -> R.Tensor(("n", 5), dtype="float32"):
    n = T.int64()
    with R.dataflow():
        c: R.Tensor((n, 5), dtype="float32") = R.concat(a, b, axis=1)
        R.output(c)
    return c
)";
  std::unique_ptr<vm::VirtualMachine> vm = BuildText(text);
  ASSERT_NE(vm, nullptr);
  std::mt19937 rng(5);
  NDArray a = Random({3, 2}, &rng), b = Random({3, 3}, &rng);
  absl::StatusOr<Value> out = vm->Invoke("main", {a, b});
  ASSERT_TRUE(out.ok()) << out.status();
  std::vector<double> want;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 2; ++j) want.push_back(F(a)[i * 2 + j]);
    for (int j = 0; j < 3; ++j) want.push_back(F(b)[i * 3 + j]);
  }
  ExpectClose(out->tensor(), want);
}

/*! \brief Python's v[begin:end:step] (step != 0, bounds clamped like a list's). */
std::vector<double> PySlice(const std::vector<double>& v, int64_t begin, int64_t end, int64_t step) {
  const int64_t n = static_cast<int64_t>(v.size());
  auto clamp = [&](int64_t b, int64_t lo, int64_t hi) { return std::min(std::max(b < 0 ? b + n : b, lo), hi); };
  int64_t i = step > 0 ? clamp(begin, 0, n) : clamp(begin, -1, n - 1),
          e = step > 0 ? clamp(end, 0, n) : clamp(end, -1, n - 1);
  std::vector<double> out;
  for (; step > 0 ? i < e : i > e; i += step) out.push_back(v[i]);
  return out;
}

TEST(SymbolicShapes, SlicesOfASymbolicAxisClampToItsLengthAtRunTime) {
  // x[1:5], x[2:-1] and x[::-2] of an x of length n: each result's length is an expression of n
  // (the clamps' min and max), one executable serves every n, slices past the end included.
  const char* text = R"(
@R.function
def main(x: R.Tensor(("n",), dtype="float32")):
    with R.dataflow():
        a = R.strided_slice(x, axes=[0], begin=[1], end=[5], strides=[1])
        b = R.strided_slice(x, axes=[0], begin=[2], end=[-1], strides=[1])
        c = R.strided_slice(x, axes=[0], begin=[-1], end=[-9223372036854775807], strides=[-2])
        t = (a, b, c)
        R.output(t)
    return t
)";
  std::unique_ptr<vm::VirtualMachine> vm = BuildText(text);
  ASSERT_NE(vm, nullptr);
  std::mt19937 rng(3);
  for (int64_t n : {1, 3, 4, 9}) {
    SCOPED_TRACE(absl::StrCat("n = ", n));
    NDArray x = Random({n}, &rng);
    std::vector<double> xs(F(x), F(x) + n);
    absl::StatusOr<Value> out = vm->Invoke("main", {x});
    ASSERT_TRUE(out.ok()) << out.status();
    const std::vector<std::vector<double>> want = {PySlice(xs, 1, 5, 1), PySlice(xs, 2, -1, 1),
                                                   PySlice(xs, -1, INT64_MIN + 1, -2)};
    ASSERT_EQ(out->tuple().size(), want.size());
    for (size_t k = 0; k < want.size(); ++k) {
      EXPECT_EQ(out->tuple()[k].tensor().shape(), (std::vector<int64_t>{static_cast<int64_t>(want[k].size())}))
          << "slice " << k;
      if (!want[k].empty()) ExpectClose(out->tuple()[k].tensor(), want[k]);
    }
  }
}

TEST(SymbolicShapes, VariablesBindFromLinearDimensions) {
  // Only 4 * n appears: the VM recovers n = 12 / 4 = 3 and allocates the (n + 1,) output.
  const char* text = R"(
@I.ir_module
class Module:
    @T.prim_func
    def sums(a: T.handle, out: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n * 4,))
        Out = T.match_buffer(out, (n + 1,))
        for i in range(n + 1):
            with T.block("Out"):
                vi = T.axis.remap("S", [i])
                Out[vi] = T.Select(vi < n, A[vi * 4] + A[vi * 4 + 1] + A[vi * 4 + 2] + A[vi * 4 + 3], T.float32(-1.0))

    @R.function
    def main(a: R.Tensor(("4 * n",), dtype="float32")) -> R.Tensor(("n + 1",), dtype="float32"):
        n = T.int64()
        cls = Module
        out = R.call_tir(cls.sums, (a,), out_sinfo=R.Tensor((n + 1,), dtype="float32"))
        return out
)";
  std::unique_ptr<vm::VirtualMachine> vm = BuildText(text);
  ASSERT_NE(vm, nullptr);
  std::mt19937 rng(4);
  NDArray a = Random({12}, &rng);
  absl::StatusOr<Value> out = vm->Invoke("main", {a});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->tensor().shape(), (std::vector<int64_t>{4}));
  std::vector<double> want;
  for (int i = 0; i < 3; ++i)
    want.push_back(static_cast<double>(F(a)[4 * i]) + F(a)[4 * i + 1] + F(a)[4 * i + 2] + F(a)[4 * i + 3]);
  want.push_back(-1);
  ExpectClose(out->tensor(), want);
  absl::StatusOr<Value> bad = vm->Invoke("main", {Random({10}, &rng)});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("argument 0 (a): dimension 0 is 10, which is not 4 * n for any n"));
}

TEST(SymbolicShapes, MatchCastBindsNewVariablesAndRoundTrips) {
  IRModule mod = Parse(kMatchCast);
  std::string printed = PrintModule(mod);
  EXPECT_THAT(printed, HasSubstr("a = R.match_cast(x, R.Tensor((n, m), dtype=\"float32\"))"));
  EXPECT_THAT(printed, HasSubstr("m = T.int64()"));
  ExpectRoundTrips(mod);

  std::unique_ptr<vm::VirtualMachine> vm = BuildWith(mod, "default");
  ASSERT_NE(vm, nullptr);
  std::mt19937 rng(8);
  for (auto [n, m] : {std::pair<int64_t, int64_t>{1, 1}, {3, 17}, {64, 5}}) {
    SCOPED_TRACE(absl::StrCat("n = ", n, ", m = ", m));
    NDArray x = Random({n, m}, &rng), y = Random({n, m}, &rng);
    absl::StatusOr<Value> out = vm->Invoke("main", {x, y});
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->tensor().shape(), (std::vector<int64_t>{n, m}));
    std::vector<double> want;
    for (int64_t i = 0; i < n * m; ++i) want.push_back(std::max(0.0, static_cast<double>(F(x)[i]) + F(y)[i]));
    ExpectClose(out->tensor(), want);
  }
  // The second cast checks y against the n and m the first one bound.
  absl::StatusOr<Value> bad = vm->Invoke("main", {Random({3, 4}, &rng), Random({3, 5}, &rng)});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("(MATCH_CAST): R.match_cast: dimension 1 is 5, expected 4 (m = 4, bound earlier)"));
}

TEST(SymbolicShapes, MatchCastErrorsSayWhere) {
  absl::Status never = ParseError(R"(
@R.function
def main(x: R.Tensor((2, 3), dtype="float32")) -> R.Tensor(dtype="float32", ndim=2):
    a = R.match_cast(x, R.Tensor((2, 4), dtype="float32"))
    return a
)");
  EXPECT_THAT(std::string(never.message()), HasSubstr("inline.py:4:9: "));
  EXPECT_THAT(std::string(never.message()), HasSubstr("match_cast: a value of Tensor((2, 3), float32) never matches "
                                                      "Tensor((2, 4), float32): dimension 1 is 3, not 4"));
  absl::Status early = ParseError(R"(
@R.function
def main(x: R.Tensor(dtype="float32", ndim=1)) -> R.Tensor(dtype="float32", ndim=1):
    n = T.int64()
    b: R.Tensor((n,), dtype="float32") = R.nn.relu(x)
    a = R.match_cast(x, R.Tensor((n,), dtype="float32"))
    return a
)");
  EXPECT_THAT(std::string(early.message()),
              HasSubstr("inline.py:5:18: shape variable 'n' is used before the R.match_cast that defines it"));
  absl::Status unbindable = ParseError(R"(
@R.function
def main(x: R.Tensor(dtype="float32", ndim=1)) -> R.Tensor(dtype="float32", ndim=1):
    a = R.match_cast(x, R.Tensor(("n * n",), dtype="float32"))
    return a
)");
  EXPECT_THAT(std::string(unbindable.message()), HasSubstr("defines shape variable n but no dimension binds it"));
}

TEST(SymbolicShapes, DimensionsInferenceCannotProveEqualAreCheckedAtRunTime) {
  // add((n, 4), (m, 4)): the builder assumes m = n and casts b with R.match_cast, which checks
  // it when the program runs; (n, 4) @ (k, 3) likewise assumes k = 4.
  tir::Var n = tir::MakeVar("n", DataType::Int64()), m = tir::MakeVar("m", DataType::Int64());
  tir::Var k = tir::MakeVar("k", DataType::Int64());
  relax::Var a = relax::MakeVar("a", relax::TensorSInfoOfDims({n, tir::I64(4)}, DataType::Float32()));
  relax::Var b = relax::MakeVar("b", relax::TensorSInfoOfDims({m, tir::I64(4)}, DataType::Float32()));
  relax::Var w = relax::MakeVar("w", relax::TensorSInfoOfDims({k, tir::I64(3)}, DataType::Float32()));
  relax::BlockBuilder bb;
  ASSERT_TRUE(bb.BeginFunction("main", std::vector<relax::Var>{a, b, w}).ok());
  ASSERT_TRUE(bb.BeginDataflow().ok());
  absl::StatusOr<relax::Var> sum = bb.Emit(relax::MakeCall(relax::GetOpOrDie("add"), {a, b}));
  ASSERT_TRUE(sum.ok()) << sum.status();
  absl::StatusOr<relax::Var> prod = bb.Emit(relax::MakeCall(relax::GetOpOrDie("matmul"), {*sum, w}));
  ASSERT_TRUE(prod.ok()) << prod.status();
  absl::StatusOr<relax::Var> out = bb.EmitOutput(*prod);
  ASSERT_TRUE(out.ok());
  ASSERT_TRUE(bb.EndDataflow().ok());
  ASSERT_TRUE(bb.EmitFuncOutput(*out).ok());
  IRModule mod = bb.Get();
  ASSERT_TRUE(VerifyModule(mod).ok()) << VerifyModule(mod);
  std::string printed = PrintModule(mod);
  EXPECT_THAT(printed, HasSubstr("R.match_cast(b, R.Tensor((n, 4), dtype=\"float32\"))"));
  EXPECT_THAT(printed, HasSubstr("R.match_cast(w, R.Tensor((4, 3), dtype=\"float32\"))"));
  EXPECT_THAT(printed, HasSubstr("R.Tensor((n, 3), dtype=\"float32\") = R.matmul("));
  ExpectRoundTrips(mod);

  std::unique_ptr<vm::VirtualMachine> vm = BuildWith(mod, "default");
  ASSERT_NE(vm, nullptr);
  std::mt19937 rng(9);
  NDArray x = Random({5, 4}, &rng), y = Random({5, 4}, &rng), z = Random({4, 3}, &rng);
  absl::StatusOr<Value> result = vm->Invoke("main", {x, y, z});
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<double> want(15, 0.0);
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 3; ++j) {
      for (int k = 0; k < 4; ++k)
        want[i * 3 + j] += (static_cast<double>(F(x)[i * 4 + k]) + F(y)[i * 4 + k]) * F(z)[k * 3 + j];
    }
  }
  ExpectClose(result->tensor(), want, 1e-5, 1e-5);
  absl::StatusOr<Value> bad = vm->Invoke("main", {x, Random({6, 4}, &rng), z});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("R.match_cast: dimension 0 is 6, expected 5 (n = 5, bound earlier)"));

  // Text says what it means: the parser assumes nothing and points at R.match_cast.
  absl::Status refused = ParseError(R"(
@R.function
def main(a: R.Tensor(("n", 4), dtype="float32"), b: R.Tensor(("m", 4), dtype="float32")):
    c = R.add(a, b)
    return c
)");
  EXPECT_THAT(std::string(refused.message()),
              HasSubstr("inline.py:4:9: add: shapes (n, 4) and (m, 4) cannot be broadcast together"));
  EXPECT_THAT(std::string(refused.message()), HasSubstr("R.match_cast one operand"));
}

TEST(SymbolicShapes, CallsOfGraphFunctionsReadTheCalleeSignatureInTheCallersVariables) {
  // double's n is main's b here: the call's result is (b, 4), not (n, 4).
  const char* text = R"(
@I.ir_module
class Module:
    @R.function
    def double(x: R.Tensor(("n", 4), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        y: R.Tensor((n, 4), dtype="float32") = R.add(x, x)
        return y

    @R.function
    def main(a: R.Tensor(("b", 4), dtype="float32")) -> R.Tensor(("b", 4), dtype="float32"):
        b = T.int64()
        cls = Module
        c: R.Tensor((b, 4), dtype="float32") = R.nn.relu(a)
        d: R.Tensor((b, 4), dtype="float32") = cls.double(c)
        return d
)";
  std::unique_ptr<vm::VirtualMachine> vm = BuildText(text);
  ASSERT_NE(vm, nullptr);
  std::mt19937 rng(10);
  NDArray a = Random({3, 4}, &rng);
  absl::StatusOr<Value> out = vm->Invoke("main", {a});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->tensor().shape(), (std::vector<int64_t>{3, 4}));
  std::vector<double> want;
  for (int i = 0; i < 12; ++i) want.push_back(2.0 * std::max(0.0f, F(a)[i]));
  ExpectClose(out->tensor(), want);
}

TEST(SymbolicShapes, ShapeValuesWithSymbolicDimensionsAllocateAtRunTime) {
  const char* text = R"(
@R.function
def main(a: R.Tensor(("n", 4), dtype="float32")) -> R.Tensor(("n * 2", 4), dtype="float32"):
    n = T.int64()
    s: R.Shape([n * 2, 4]) = R.shape([n * 2, 4])
    scratch: R.Tensor((n * 2, 4), dtype="float32") = R.alloc_tensor(s, dtype="float32")
    return scratch
)";
  absl::StatusOr<IRModule> mod = ParseTVMScript(text, "inline.py");
  ASSERT_TRUE(mod.ok()) << mod.status();
  std::string printed = PrintModule(*mod);
  EXPECT_THAT(printed, HasSubstr("s: R.Shape([n * 2, 4]) = R.shape([n * 2, 4])"));
  ExpectRoundTrips(*mod);
  std::unique_ptr<vm::VirtualMachine> vm = BuildWith(*mod, "O0");
  ASSERT_NE(vm, nullptr);
  std::mt19937 rng(11);
  absl::StatusOr<Value> out = vm->Invoke("main", {Random({3, 4}, &rng)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(out->tensor().shape(), (std::vector<int64_t>{6, 4}));
  absl::Status undefined = ParseError(R"(
@R.function
def main(a: R.Tensor(("n", 4), dtype="float32")):
    s = R.shape([m, 4])
    return a
)");
  EXPECT_THAT(std::string(undefined.message()), HasSubstr("inline.py:4:18: shape variable 'm' is not defined"));
}

/*! \brief The default-pipeline build of `mod`: its executable, whose main function's memory plan the caller inspects.
 */
proto::Executable BuildExecutable(const IRModule& mod) {
  absl::StatusOr<std::vector<std::unique_ptr<passes::Pass>>> passes = passes::ParsePipeline("default");
  EXPECT_TRUE(passes.ok()) << passes.status();
  absl::StatusOr<IRModule> lowered = passes::RunPipeline(mod, *passes);
  EXPECT_TRUE(lowered.ok()) << lowered.status();
  absl::StatusOr<proto::Executable> exe = lowered.ok() ? codegen::Build(*lowered) : lowered.status();
  EXPECT_TRUE(exe.ok()) << exe.status();
  return exe.ok() ? *exe : proto::Executable();
}

/*! \brief Main's ALLOC_TENSORs: how many have a place in the arena, how many do not. */
std::pair<int, int> PlannedAllocations(const proto::Executable& exe) {
  std::pair<int, int> planned_unplanned{0, 0};
  for (const proto::VMFunction& fn : exe.functions()) {
    if (fn.name() != "main") continue;
    for (const proto::Instruction& inst : fn.instructions()) {
      if (inst.callee_kind() != proto::Instruction::BUILTIN || inst.builtin() != proto::Instruction::ALLOC_TENSOR)
        continue;
      (inst.args_size() == 4 ? planned_unplanned.first : planned_unplanned.second)++;
    }
  }
  return planned_unplanned;
}

TEST(SymbolicShapes, UpperBoundsPlanSymbolicIntermediatesIntoStorageReusedAcrossSizes) {
  IRModule mod = Parse(kOperatorMlp);
  // Without a bound the (n, 128) hidden layer is left to the pool; the result never is planned.
  auto [planned_free, unplanned_free] = PlannedAllocations(BuildExecutable(mod));
  EXPECT_GE(unplanned_free, 2);
  absl::StatusOr<IRModule> bounded = SetShapeUpperBounds(mod, {{"n", 64}});
  ASSERT_TRUE(bounded.ok()) << bounded.status();
  proto::Executable exe = BuildExecutable(*bounded);
  auto [planned, unplanned] = PlannedAllocations(exe);
  EXPECT_EQ(planned, planned_free + 1);
  EXPECT_EQ(unplanned, 1);  // the returned (n, 10)
  absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm =
      vm::VirtualMachine::LoadBytes(vm::SerializeExecutable(exe), "bounded.mlcx");
  ASSERT_TRUE(vm.ok()) << vm.status();
  // One executable at every batch: after the first call at the bound, smaller calls take no
  // new memory for their intermediates (the arena has a fixed size) and at most a block for
  // the result, whose size is the batch's; a call beyond the bound still runs.
  std::mt19937 rng(7);
  NDArray w0 = Random({128, 784}, &rng, -0.05f, 0.05f), b0 = Random({128}, &rng);
  NDArray w1 = Random({10, 128}, &rng, -0.1f, 0.1f), b1 = Random({10}, &rng);
  bool first = true;
  for (int64_t n : {64, 3, 64, 1, 100}) {
    SCOPED_TRACE(absl::StrCat("n = ", n));
    NDArray x = Random({n, 784}, &rng, 0, 1);
    const size_t allocated_before = (*vm)->pool().allocated();
    absl::StatusOr<Value> out = (*vm)->Invoke("main", {x, w0, b0, w1, b1});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectClose(out->tensor(), MlpReference(x, w0, b0, w1, b1), 1e-4, 1e-4);
    if (!first && n <= 64) EXPECT_LE((*vm)->pool().allocated(), allocated_before + 1);
    first = false;
  }
  absl::StatusOr<IRModule> unknown = SetShapeUpperBounds(mod, {{"batch", 8}});
  EXPECT_THAT(std::string(unknown.status().message()),
              HasSubstr("no graph function has a shape variable batch (there are: n)"));
  EXPECT_FALSE(ParseUpperBounds("n=0").ok());
  EXPECT_FALSE(ParseUpperBounds("n").ok());
  EXPECT_EQ(ParseUpperBounds(" n=64, seq=128")->at("seq"), 128);
}

TEST(SymbolicShapes, WithoutBoundsThePoolKeepsTheLastSizesNotEverySizeItServed) {
  // Unbounded, the hidden layer and the result come from the pool at each batch's size. A
  // server sees many batch sizes; the pool must not keep a block for each.
  proto::Executable exe = BuildExecutable(Parse(kOperatorMlp));
  std::mt19937 rng(11);
  NDArray w0 = Random({128, 784}, &rng, -0.05f, 0.05f), b0 = Random({128}, &rng);
  NDArray w1 = Random({10, 128}, &rng, -0.1f, 0.1f), b1 = Random({10}, &rng);
  auto held_after = [&](const std::vector<int64_t>& batches) -> size_t {
    absl::StatusOr<std::unique_ptr<vm::VirtualMachine>> vm =
        vm::VirtualMachine::LoadBytes(vm::SerializeExecutable(exe), "unbounded.mlcx");
    EXPECT_TRUE(vm.ok()) << vm.status();
    if (!vm.ok()) return 0;
    for (int64_t n : batches) {
      NDArray x = Random({n, 784}, &rng, 0, 1);
      absl::StatusOr<Value> out = (*vm)->Invoke("main", {x, w0, b0, w1, b1});
      EXPECT_TRUE(out.ok()) << out.status();
      if (out.ok()) ExpectClose(out->tensor(), MlpReference(x, w0, b0, w1, b1), 1e-4, 1e-4);
    }
    return (*vm)->pool().held_bytes();
  };
  std::vector<int64_t> many;
  for (int64_t n = 1; n <= 40; ++n) many.push_back(n);
  const size_t last_size_alone = held_after({40});
  const size_t after_many = held_after(many);
  EXPECT_GT(last_size_alone, 0u);
  // Every size kept would be about 20x the last one's (the sizes sum to 820 rows against 40).
  EXPECT_LE(after_many, 2 * last_size_alone) << "the pool kept blocks of earlier batch sizes";
}

TEST(SymbolicShapes, UndefinedOrUnbindableVariablesAreErrorsThatSayWhere) {
  absl::Status undefined = ParseError(R"(
@R.function
def main(x: R.Tensor(("n", 4), dtype="float32")) -> R.Tensor(dtype="float32", ndim=2):
    with R.dataflow():
        y: R.Tensor((m, 4), dtype="float32") = R.nn.relu(x)
        R.output(y)
    return y
)");
  EXPECT_THAT(std::string(undefined.message()), HasSubstr("inline.py:5:22: shape variable 'm' is not defined"));
  absl::Status unbindable = ParseError(R"(
@R.function
def main(x: R.Tensor(("n * n", 4), dtype="float32")) -> R.Tensor(dtype="float32", ndim=2):
    return x
)");
  EXPECT_THAT(std::string(unbindable.message()), HasSubstr("shape variable n is bound by no parameter dimension"));
  absl::Status unmatched = ParseError(R"(
@T.prim_func
def f(a: T.handle):
    n = T.int64()
    for i in range(n):
        T.evaluate(0)
)");
  EXPECT_THAT(std::string(unmatched.message()),
              HasSubstr("parameter a is a T.handle but no T.match_buffer(a, ...) binds it"));
  absl::Status not_a_dim = ParseError(R"(
@T.prim_func
def f(a: T.handle):
    A = T.match_buffer(a, (k, 4))
)");
  EXPECT_THAT(std::string(not_a_dim.message()), HasSubstr("undefined variable 'k'"));
}

}  // namespace
}  // namespace mlc
