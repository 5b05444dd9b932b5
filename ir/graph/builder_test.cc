/*! \file builder_test.cc
 *  \brief Tensor expressions, the operator library and BlockBuilder, used through their
 *         public API as a user would, against golden TVMScript of the seeds' examples.
 */
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/graph/block_builder.h"
#include "ir/graph/op.h"
#include "ir/graph/printer.h"
#include "ir/graph/structural_equal.h"
#include "ir/graph/verifier.h"
#include "ir/te/call_te.h"
#include "ir/te/tensor.h"
#include "ir/testing/golden.h"
#include "ir/topi/topi.h"

namespace mlc {
namespace {

using relax::BlockBuilder;
using relax::Expr;
using relax::Var;
using te::Tensor;
using ::testing::HasSubstr;

const DataType kF32 = DataType::Float32();

// The seeds' te_matmul and te_relu.
Tensor TeMatmul(const Tensor& A, const Tensor& B) {
  te::ReduceAxis k = te::MakeReduceAxis(A.shape()[1], "k");
  return te::Compute({A.shape()[0], B.shape()[1]},
                     [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
                       return te::Sum(tir::operator*(A({i[0], k}), B({k, i[1]})), {k});
                     },
                     "matmul", {"i", "j"});
}

Tensor TeRelu(const Tensor& A) {
  return te::Compute(
      A.shape(),
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        return tir::Max(A(std::vector<tir::PrimExpr>(i.begin(), i.end())), tir::Const(A.dtype(), 0));
      },
      "relu");
}

void ExpectGolden(const std::string& name, const std::string& text) {
  absl::Status s = testing::CheckGolden(absl::StrCat("testdata/te/", name, ".py"), text);
  EXPECT_TRUE(s.ok()) << s;
}

std::string Print(const tir::PrimFunc& f) { return PrintPrimFunc(f, "main"); }

TEST(TensorExpression, MatmulPrintsLikeTheSeed) {
  Tensor A = te::Placeholder({128, 128}, kF32, "A");
  Tensor B = te::Placeholder({128, 128}, kF32, "B");
  absl::StatusOr<tir::PrimFunc> f = te::CreatePrimFunc({A, B, TeMatmul(A, B)});
  ASSERT_TRUE(f.ok()) << f.status();
  ExpectGolden("te_matmul", Print(*f));
}

TEST(TensorExpression, ReluOnAnyRank) {
  Tensor X1 = te::Placeholder({10}, kF32, "X1");
  ExpectGolden("te_relu_1d", Print(*te::CreatePrimFunc({X1, TeRelu(X1)})));
  Tensor X2 = te::Placeholder({10, 20}, kF32, "X1");
  ExpectGolden("te_relu_2d", Print(*te::CreatePrimFunc({X2, TeRelu(X2)})));
}

TEST(TensorExpression, IntermediatesBecomeAllocBuffersUnlessPassed) {
  Tensor A = te::Placeholder({128, 128}, kF32, "A");
  Tensor B = te::Placeholder({128, 128}, kF32, "B");
  Tensor C = TeMatmul(A, B);
  Tensor D = TeRelu(C);
  absl::StatusOr<tir::PrimFunc> fused = te::CreatePrimFunc({A, B, D});
  ASSERT_TRUE(fused.ok());
  ExpectGolden("te_matmul_relu", Print(*fused));
  ASSERT_EQ(tir::GetRootBlock((*fused)->body)->alloc_buffers.size(), 1u);
  absl::StatusOr<tir::PrimFunc> four = te::CreatePrimFunc({A, B, C, D});
  ASSERT_TRUE(four.ok());
  ExpectGolden("te_matmul_relu_four_params", Print(*four));
  EXPECT_TRUE(tir::GetRootBlock((*four)->body)->alloc_buffers.empty());
}

TEST(TensorExpression, MissingPlaceholderIsAnError) {
  Tensor A = te::Placeholder({4}, kF32, "A");
  absl::StatusOr<tir::PrimFunc> f = te::CreatePrimFunc({TeRelu(A)});
  ASSERT_FALSE(f.ok());
  EXPECT_THAT(std::string(f.status().message()), HasSubstr("placeholder A is read but not passed"));
}

Var TensorVar(const std::string& name, std::vector<int64_t> shape) {
  return relax::MakeVar(name, relax::TensorSInfo(std::move(shape), kF32));
}

te::FTE Fn(Tensor (*f)(const Tensor&)) {
  return [f](const std::vector<Tensor>& t) -> absl::StatusOr<Tensor> { return f(t[0]); };
}
te::FTE Fn2(Tensor (*f)(const Tensor&, const Tensor&)) {
  return [f](const std::vector<Tensor>& t) -> absl::StatusOr<Tensor> { return f(t[0], t[1]); };
}
te::FTE Topi2(absl::StatusOr<Tensor> (*f)(const Tensor&, const Tensor&)) {
  return [f](const std::vector<Tensor>& t) { return f(t[0], t[1]); };
}

IRModule MatmulReluModule(bool params_at_start) {
  Var A = TensorVar("A", {128, 128}), B = TensorVar("B", {128, 128});
  BlockBuilder bb;
  EXPECT_TRUE(params_at_start ? bb.BeginFunction("main", std::vector<Var>{A, B}).ok() : bb.BeginFunction("main").ok());
  EXPECT_TRUE(bb.BeginDataflow().ok());
  absl::StatusOr<Var> C = te::EmitTE(&bb, "te_matmul", Fn2(TeMatmul), {A, B});
  EXPECT_TRUE(C.ok()) << C.status();
  EXPECT_EQ((*C)->kind(), NodeKind::kDataflowVar);
  absl::StatusOr<Var> D = te::EmitTE(&bb, "te_relu", Fn(TeRelu), {*C});
  absl::StatusOr<Var> R = bb.EmitOutput(*D);
  EXPECT_EQ((*R)->kind(), NodeKind::kVar);
  EXPECT_TRUE(bb.EndDataflow().ok());
  absl::StatusOr<relax::GlobalVar> main =
      params_at_start ? bb.EmitFuncOutput(*R) : bb.EmitFuncOutput(*R, std::vector<Var>{A, B});
  EXPECT_TRUE(main.ok()) << main.status();
  return bb.Get();
}

TEST(BlockBuilder, MatmulReluMainPrintsLikeTheSeed) {
  IRModule mod = MatmulReluModule(false);
  EXPECT_TRUE(VerifyModule(mod).ok()) << VerifyModule(mod);
  ExpectGolden("bb_matmul_relu", PrintModule(mod));
  // Parameters given at the start build the same module.
  EXPECT_TRUE(StructuralEqual(mod, MatmulReluModule(true)));
}

std::vector<TensorData> MlpWeights(int64_t in, int64_t hidden, int64_t out) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-0.1f, 0.1f);
  std::vector<TensorData> weights;
  for (std::vector<int64_t> shape : {std::vector<int64_t>{hidden, in}, {hidden}, {out, hidden}, {out}}) {
    TensorData t(kF32, shape);
    float* p = static_cast<float*>(t.mutable_data());
    for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = dist(rng);
    weights.push_back(t);
  }
  return weights;
}

TEST(BlockBuilder, MlpThroughTheOperatorLibrary) {
  // The seeds' MLPModule: linear layers as topi dense + add, relu as te_relu.
  std::vector<TensorData> w = MlpWeights(784, 128, 10);
  Var x = TensorVar("x", {1, 784});
  BlockBuilder bb;
  ASSERT_TRUE(bb.BeginFunction("main").ok());
  ASSERT_TRUE(bb.BeginDataflow().ok());
  Var lv = *te::EmitTE(&bb, "dense", Topi2(topi::Dense), {x, relax::MakeConstant(w[0])});
  Var lv1 = *te::EmitTE(&bb, "add", Topi2(topi::Add), {lv, relax::MakeConstant(w[1])});
  Var lv2 = *te::EmitTE(&bb, "te_relu", Fn(TeRelu), {lv1});
  Var lv3 = *te::EmitTE(&bb, "dense", Topi2(topi::Dense), {lv2, relax::MakeConstant(w[2])});
  Var lv4 = *te::EmitTE(&bb, "add", Topi2(topi::Add), {lv3, relax::MakeConstant(w[3])});
  Var gv = *bb.EmitOutput(lv4);
  ASSERT_TRUE(bb.EndDataflow().ok());
  ASSERT_TRUE(bb.EmitFuncOutput(gv, std::vector<Var>{x}).ok());
  IRModule mod = bb.Get();
  EXPECT_TRUE(VerifyModule(mod).ok()) << VerifyModule(mod);
  // Unique names as the seeds show: dense, dense1, add, add1.
  for (const char* name : {"dense", "dense1", "add", "add1", "te_relu", "main"})
    EXPECT_TRUE(mod.Contains(name)) << name;
  ExpectGolden("bb_mlp_topi", PrintModule(mod));
}

TEST(BlockBuilder, MlpWithHighLevelOperators) {
  // The seeds' create_model(): dense, add and relu as graph-level operators.
  std::vector<TensorData> w = MlpWeights(784, 128, 10);
  Var x = TensorVar("x", {1, 784});
  BlockBuilder bb;
  ASSERT_TRUE(bb.BeginFunction("main", std::vector<Var>{x}).ok());
  ASSERT_TRUE(bb.BeginDataflow().ok());
  auto op = [](const char* name, std::vector<Expr> args) {
    return Expr(relax::MakeCall(relax::GetOpOrDie(name), args));
  };
  Var lv0 = *bb.Emit(op("nn.dense", {x, relax::MakeConstant(w[0])}));
  Var lv1 = *bb.Emit(op("add", {lv0, relax::MakeConstant(w[1])}));
  Var lv2 = *bb.Emit(op("nn.relu", {lv1}));
  Var lv3 = *bb.Emit(op("nn.dense", {lv2, relax::MakeConstant(w[2])}));
  Var lv4 = *bb.Emit(op("add", {lv3, relax::MakeConstant(w[3])}));
  Var gv = *bb.EmitOutput(lv4);
  ASSERT_TRUE(bb.EndDataflow().ok());
  ASSERT_TRUE(bb.EmitFuncOutput(gv).ok());
  IRModule mod = bb.Get();
  EXPECT_TRUE(VerifyModule(mod).ok());
  ExpectGolden("bb_mlp_high_level", PrintModule(mod));
  // Nested calls are bound first: add(dense(x, w), b) emits the dense.
  BlockBuilder nested;
  ASSERT_TRUE(nested.BeginFunction("main", std::vector<Var>{x}).ok());
  absl::StatusOr<Var> y =
      nested.Emit(op("add", {op("nn.dense", {x, relax::MakeConstant(w[0])}), relax::MakeConstant(w[1])}));
  ASSERT_TRUE(y.ok());
  ASSERT_TRUE(nested.EmitFuncOutput(*y).ok());
  EXPECT_EQ(nested.Get().LookupFunction("main")->body->blocks[0]->bindings.size(), 2u);
}

TEST(BlockBuilder, ReportsMisuseAndShapeErrors) {
  Var x = TensorVar("x", {3, 4}), y = TensorVar("y", {5});
  BlockBuilder bb;
  absl::StatusOr<Var> outside = bb.Emit(relax::MakeCall(relax::GetOpOrDie("add"), {x, x}));
  ASSERT_FALSE(outside.ok());
  EXPECT_THAT(std::string(outside.status().message()), HasSubstr("Emit outside a function"));
  ASSERT_TRUE(bb.BeginFunction("f", std::vector<Var>{x, y}).ok());
  absl::StatusOr<Var> bad = bb.Emit(relax::MakeCall(relax::GetOpOrDie("add"), {x, y}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "add: shapes (3, 4) and (5,) cannot be broadcast together");
  absl::StatusOr<Var> te_bad = te::EmitTE(&bb, "add", Topi2(topi::Add), {x, y});
  ASSERT_FALSE(te_bad.ok());
  EXPECT_THAT(std::string(te_bad.status().message()), HasSubstr("add: shapes (3, 4) and (5,) cannot be broadcast"));
  EXPECT_FALSE(bb.EmitOutput(x).ok());  // not in a dataflow block
  ASSERT_TRUE(bb.EmitFuncOutput(x).ok());
  absl::StatusOr<relax::GlobalVar> twice = bb.EmitFuncOutput(x);
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(std::string(twice.status().message()), HasSubstr("EmitFuncOutput outside a function"));

  BlockBuilder df;
  ASSERT_TRUE(df.BeginFunction("g", std::vector<Var>{x}).ok());
  ASSERT_TRUE(df.BeginDataflow().ok());
  Var lv = *df.Emit(relax::MakeCall(relax::GetOpOrDie("nn.relu"), {x}));
  ASSERT_TRUE(df.EndDataflow().ok());
  absl::StatusOr<relax::GlobalVar> local = df.EmitFuncOutput(lv);
  ASSERT_FALSE(local.ok());
  EXPECT_THAT(std::string(local.status().message()), HasSubstr("return the Var from EmitOutput"));
}

TEST(OperatorLibrary, ShapesFollowNumpy) {
  Tensor a = te::Placeholder({2, 1, 3, 4}, kF32, "a"), b = te::Placeholder({5, 4, 7}, kF32, "b");
  absl::StatusOr<Tensor> mm = topi::Matmul(a, b);
  ASSERT_TRUE(mm.ok());
  EXPECT_EQ(*topi::StaticShape(*mm, "t"), (std::vector<int64_t>{2, 5, 3, 7}));
  Tensor v = te::Placeholder({4}, kF32, "v");
  EXPECT_EQ(*topi::StaticShape(*topi::Matmul(v, b), "t"), (std::vector<int64_t>{5, 7}));
  absl::StatusOr<Tensor> t = topi::Transpose(a, {3, 0, 2, 1});
  EXPECT_EQ(*topi::StaticShape(*t, "t"), (std::vector<int64_t>{4, 2, 3, 1}));
  EXPECT_FALSE(topi::Dense(a, b).ok());
  absl::StatusOr<tir::PrimFunc> f = te::CreatePrimFunc({a, b, *mm});
  ASSERT_TRUE(f.ok());
  IRModule mod;
  mod.Add("mm", *f);
  EXPECT_TRUE(VerifyModule(mod).ok()) << VerifyModule(mod);
}

}  // namespace
}  // namespace mlc
