/*! \file ir_test.cc
 *  \brief The IR core: printed seed modules against goldens, Protobuf round trips,
 *         structural equality, operator struct-info errors, and the verifier.
 */
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "ir/graph/block_builder.h"
#include "ir/graph/op.h"
#include "ir/graph/printer.h"
#include "ir/graph/serialize.h"
#include "ir/graph/structural_equal.h"
#include "ir/graph/verifier.h"
#include "ir/testing/golden.h"
#include "ir/testing/seed_modules.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/tir_util.h"
#include "support/file_util.h"
#include "support/resource_limits.h"

namespace mlc {
namespace {

using ::testing::HasSubstr;

TEST(SeedModules, PrintLikeTheGoldens) {
  for (const auto& [name, mod] : testing::AllSeedModules()) {
    SCOPED_TRACE(name);
    absl::Status status = testing::CheckGolden(absl::StrCat("testdata/ir/", name, ".py"), PrintModule(mod));
    EXPECT_TRUE(status.ok()) << status;
  }
}

TEST(SeedModules, AreWellFormed) {
  for (const auto& [name, mod] : testing::AllSeedModules()) {
    absl::Status status = VerifyModule(mod);
    EXPECT_TRUE(status.ok()) << name << ": " << status;
  }
}

TEST(SeedModules, SurviveProtobufRoundTrip) {
  for (const auto& [name, mod] : testing::AllSeedModules()) {
    SCOPED_TRACE(name);
    absl::StatusOr<IRModule> loaded = DeserializeModule(SerializeModule(mod));
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    absl::Status eq = CheckStructuralEqual(mod, *loaded);
    EXPECT_TRUE(eq.ok()) << eq;
    EXPECT_EQ(StructuralHash(mod), StructuralHash(*loaded));
    EXPECT_EQ(PrintModule(mod), PrintModule(*loaded));
    EXPECT_TRUE(VerifyModule(*loaded).ok());
  }
}

TEST(SeedModules, SaveAndLoadFiles) {
  std::string path = absl::StrCat(::testing::TempDir(), "/my_module.irpb");
  IRModule mod = testing::MyModule();
  ASSERT_TRUE(SaveModule(mod, path).ok());
  absl::StatusOr<IRModule> loaded = LoadModule(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_TRUE(StructuralEqual(mod, *loaded));
}

TEST(Serialization, AConstantSharedByFunctionsIsStoredOnceAndLoadsAsOne) {
  // A 1 MB weight that two functions read (a decoder's main and @prefill share every weight).
  TensorData w(DataType::Float32(), {512, 512});
  for (int64_t i = 0; i < w.NumElements(); ++i) static_cast<float*>(w.mutable_data())[i] = static_cast<float>(i % 7);
  const relax::Expr shared = relax::MakeConstant(w);
  relax::BlockBuilder bb;
  for (const char* name : {"main", "prefill"}) {
    relax::Var x = relax::MakeVar("x", relax::TensorSInfo({512, 512}, DataType::Float32()));
    ASSERT_TRUE(bb.BeginFunction(name, std::vector<relax::Var>{x}).ok());
    absl::StatusOr<relax::Var> y = bb.Emit(relax::MakeCall(relax::GetOpOrDie("add"), {x, shared}));
    ASSERT_TRUE(y.ok()) << y.status();
    ASSERT_TRUE(bb.EmitFuncOutput(*y).ok());
  }
  const std::string path = absl::StrCat(::testing::TempDir(), "/shared_constant.irpb");
  ASSERT_TRUE(SaveModule(bb.Get(), path).ok());
  absl::StatusOr<std::string> bytes = ReadFile(path);
  ASSERT_TRUE(bytes.ok());
  EXPECT_LT(bytes->size(), w.NumBytes() * 3 / 2) << "the weight is stored twice";
  absl::StatusOr<IRModule> loaded = LoadModule(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto constant_of = [&](const std::string& name) -> const Object* {
    const auto* f = loaded->LookupFunction(name).get();
    const auto* call = f->body->blocks[0]->bindings[0]->value.as<relax::CallNode>();
    return call->args[1].get();
  };
  EXPECT_EQ(constant_of("main"), constant_of("prefill"));
  EXPECT_TRUE(StructuralEqual(bb.Get(), *loaded));
}

TEST(Serialization, RejectsTruncatedGarbageAndUnknownVersions) {
  std::string bytes = SerializeModule(testing::MyModule());
  // Every truncation either fails cleanly or (never, in practice) yields a valid module.
  int failures = 0;
  for (size_t len = 0; len < bytes.size(); len += 97) {
    absl::StatusOr<IRModule> m = DeserializeModule(bytes.substr(0, len), "cut.irpb");
    if (!m.ok()) {
      ++failures;
      EXPECT_THAT(std::string(m.status().message()), HasSubstr("cut.irpb"));
    }
  }
  EXPECT_GT(failures, 0);
  absl::StatusOr<IRModule> garbage = DeserializeModule("\x12\x34 this is not a protobuf \xff\xff", "garbage.irpb");
  EXPECT_FALSE(garbage.ok());
  // A flipped byte anywhere is refused (the sealed envelope's digest), never read as another module.
  for (size_t i = 0; i < bytes.size(); i += 13) {
    std::string flipped = bytes;
    flipped[i] ^= 0x04;
    absl::StatusOr<IRModule> m = DeserializeModule(flipped, "flipped.irpb");
    ASSERT_FALSE(m.ok()) << "byte " << i;
    EXPECT_THAT(std::string(m.status().message()), HasSubstr("flipped.irpb"));
  }

  proto::ModuleProto proto = ModuleToProto(testing::MyModule());
  proto.set_format_version(kIRFormatVersion + 1);
  absl::StatusOr<IRModule> future = ModuleFromProto(proto);
  ASSERT_FALSE(future.ok());
  EXPECT_THAT(std::string(future.status().message()), HasSubstr("format version"));

  proto = ModuleToProto(testing::MyModule());
  proto.set_magic("something else");
  EXPECT_FALSE(ModuleFromProto(proto).ok());

  // A reference to a later node is malformed.
  proto = ModuleToProto(testing::EwiseModule());
  proto::FunctionProto* fn = proto.mutable_functions(0);
  fn->mutable_nodes(fn->nodes_size() - 1)->mutable_function()->set_body(fn->nodes_size() + 5);
  absl::StatusOr<IRModule> dangling = ModuleFromProto(proto);
  ASSERT_FALSE(dangling.ok());
  EXPECT_THAT(std::string(dangling.status().message()), HasSubstr("not an earlier node"));
}

TEST(Serialization, LoadOfMissingFileIsAnError) {
  absl::StatusOr<IRModule> m = LoadModule("/nonexistent/dir/m.irpb");
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(std::string(m.status().message()), HasSubstr("/nonexistent/dir/m.irpb"));
}

TEST(StructuralEqual, IgnoresNamesButNotStructure) {
  // Two independently built copies: distinct nodes, same structure.
  EXPECT_TRUE(StructuralEqual(testing::MyModule(), testing::MyModule()));
  EXPECT_EQ(StructuralHash(testing::MyModule()), StructuralHash(testing::MyModule()));
  EXPECT_FALSE(StructuralEqual(testing::MyModule(), testing::MyModuleMixture()));

  // Renaming a variable keeps equality.
  using namespace relax;  // NOLINT
  auto make = [](const std::string& name, bool swap) {
    Var x = MakeVar(name, TensorSInfo({3, 4}, DataType::Float32()));
    Var y = MakeVar("y", TensorSInfo({3, 4}, DataType::Float32()));
    Call call = MakeCall(GetOpOrDie("add"), {swap ? y : x, swap ? x : y});
    call->SetStructInfoOnce(*InferCallStructInfo(*call, nullptr));
    Var out = MakeVar("out", call->struct_info());
    BindingBlock block(new BindingBlockNode({VarBinding(new VarBindingNode(out, call))}, false));
    return BaseFunc(MakeFunction({x, y}, SeqExpr(new SeqExprNode({block}, out))));
  };
  EXPECT_TRUE(StructuralEqual(make("x", false), make("renamed", false)));
  EXPECT_EQ(StructuralHash(make("x", false)), StructuralHash(make("renamed", false)));
  absl::Status diff = CheckStructuralEqual(make("x", false), make("x", true));
  ASSERT_FALSE(diff.ok());
  EXPECT_THAT(std::string(diff.message()), HasSubstr("binding out"));
}

TEST(Printer, FloatsPrintLikePython) {
  EXPECT_EQ(FormatPythonFloat(0.0), "0.0");
  EXPECT_EQ(FormatPythonFloat(1.0), "1.0");
  EXPECT_EQ(FormatPythonFloat(0.1), "0.1");
  EXPECT_EQ(FormatPythonFloat(-2.5), "-2.5");
  EXPECT_EQ(FormatPythonFloat(1e-05), "1e-05");
  EXPECT_EQ(FormatPythonFloat(123456.0), "123456.0");
  EXPECT_EQ(FormatPythonFloat(1e16), "1e+16");
  EXPECT_EQ(FormatPythonFloat(static_cast<double>(0.1f)), "0.10000000149011612");
}

TEST(Printer, ParenthesizesByPrecedence) {
  using namespace tir;  // NOLINT
  Var a = MakeVar("a"), b = MakeVar("b"), c = MakeVar("c");
  EXPECT_EQ(PrintPrimExpr((a + b) * c), "(a + b) * c");
  EXPECT_EQ(PrintPrimExpr(a + b * c), "a + b * c");
  EXPECT_EQ(PrintPrimExpr(a - (b - c)), "a - (b - c)");
  EXPECT_EQ(PrintPrimExpr(FloorDiv(a, b) + FloorMod(a, c)), "a // b + a % c");
  EXPECT_EQ(PrintPrimExpr(a < b && b < c), "a < b and b < c");
  EXPECT_EQ(PrintPrimExpr(Cast(DataType::Int64(), a) + I64(1)), "T.Cast(\"int64\", a) + T.int64(1)");
}

// ---- Operator struct info.

relax::Var TensorVar(const std::string& name, std::vector<int64_t> shape, DataType dtype = DataType::Float32()) {
  return relax::MakeVar(name, relax::TensorSInfo(std::move(shape), dtype));
}

absl::StatusOr<relax::StructInfo> Infer(const std::string& op, std::vector<relax::Expr> args, Attrs attrs = {}) {
  relax::Call call = relax::MakeCall(relax::GetOpOrDie(op), std::move(args), std::move(attrs));
  return relax::InferCallStructInfo(*call, nullptr);
}

TEST(Ops, InferShapesWithNumpySemantics) {
  EXPECT_EQ(relax::StructInfoToString(*Infer("add", {TensorVar("a", {4, 1, 3}), TensorVar("b", {5, 1})})),
            "Tensor((4, 5, 3), float32)");
  EXPECT_EQ(relax::StructInfoToString(*Infer("matmul", {TensorVar("a", {2, 1, 3, 4}), TensorVar("b", {5, 4, 7})})),
            "Tensor((2, 5, 3, 7), float32)");
  EXPECT_EQ(relax::StructInfoToString(*Infer("matmul", {TensorVar("a", {4}), TensorVar("b", {4, 7})})),
            "Tensor((7,), float32)");
  EXPECT_EQ(relax::StructInfoToString(*Infer("nn.dense", {TensorVar("x", {1, 784}), TensorVar("w", {128, 784})})),
            "Tensor((1, 128), float32)");
  EXPECT_EQ(relax::StructInfoToString(*Infer("permute_dims", {TensorVar("w", {128, 784})})),
            "Tensor((784, 128), float32)");
  EXPECT_EQ(relax::StructInfoToString(
                *Infer("permute_dims", {TensorVar("w", {2, 3, 4})}, {{"axes", std::vector<int64_t>{1, 2, 0}}})),
            "Tensor((3, 4, 2), float32)");
  EXPECT_EQ(relax::StructInfoToString(
                *Infer("linear", {TensorVar("x", {1, 784}), TensorVar("w", {128, 784}), TensorVar("b", {128})})),
            "Tensor((1, 128), float32)");
}

TEST(Ops, ReportMismatchedShapesAndDtypes) {
  absl::StatusOr<relax::StructInfo> bad = Infer("add", {TensorVar("a", {3, 4}), TensorVar("b", {5})});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("add: shapes (3, 4) and (5,) cannot be broadcast"));
  bad = Infer("add", {TensorVar("a", {3}), TensorVar("b", {3}, DataType::Int32())});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("dtype mismatch: float32 vs int32"));
  bad = Infer("nn.dense", {TensorVar("x", {1, 784}), TensorVar("w", {128, 100})});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("nn.dense: data (1, 784) and weight (128, 100)"));
  bad = Infer("ewise_fma", {TensorVar("a", {3}), TensorVar("b", {3})});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()), HasSubstr("takes 3 arguments, got 2"));
  EXPECT_FALSE(relax::GetOp("no.such.op").ok());
  EXPECT_THAT(std::string(relax::GetOp("no.such.op").status().message()), HasSubstr("known operators: abs, acos"));
}

// ---- Verifier: one module per violation.

/*! \brief A main function from bindings: each (var, value, block index, dataflow). */
struct BindingSpec {
  relax::Var var;
  relax::Expr value;
};

IRModule ModuleFromBlocks(std::vector<relax::Var> params, std::vector<std::pair<bool, std::vector<BindingSpec>>> blocks,
                          relax::Expr result) {
  std::vector<relax::BindingBlock> out;
  for (auto& [dataflow, bindings] : blocks) {
    std::vector<relax::VarBinding> bs;
    for (auto& b : bindings) bs.push_back(relax::VarBinding(new relax::VarBindingNode(b.var, b.value)));
    out.push_back(relax::BindingBlock(new relax::BindingBlockNode(bs, dataflow)));
  }
  IRModule mod;
  mod.Add("main", relax::MakeFunction(params, relax::SeqExpr(new relax::SeqExprNode(out, result))));
  return mod;
}

relax::Call Add(relax::Expr a, relax::Expr b) {
  relax::Call call = relax::MakeCall(relax::GetOpOrDie("add"), {a, b});
  call->SetStructInfoOnce(*relax::InferCallStructInfo(*call, nullptr));
  return call;
}

std::string VerifyError(const IRModule& mod) {
  absl::Status s = VerifyModule(mod);
  return s.ok() ? "<ok>" : std::string(s.message());
}

TEST(Verifier, RejectsUndefinedVariables) {
  relax::Var x = TensorVar("x", {3}), ghost = TensorVar("ghost", {3});
  relax::Var y = relax::MakeVar("y", relax::TensorSInfo({3}, DataType::Float32()));
  EXPECT_EQ(VerifyError(ModuleFromBlocks({x}, {{false, {{y, Add(x, ghost)}}}}, y)),
            "in function @main, binding y: variable ghost is used before it is defined (or never defined)");
}

TEST(Verifier, RejectsDoublyDefinedVariables) {
  relax::Var x = TensorVar("x", {3});
  relax::Var y = TensorVar("y", {3});
  EXPECT_EQ(VerifyError(ModuleFromBlocks({x}, {{false, {{y, Add(x, x)}, {y, Add(x, x)}}}}, y)),
            "in function @main, binding y: variable y is defined twice");
}

TEST(Verifier, ChecksIfPlacementConditionAndBranches) {
  relax::Var c = TensorVar("c", {}, DataType::Bool()), x = TensorVar("x", {3});
  relax::Var y = TensorVar("y", {3});
  relax::Expr branch(new relax::IfNode(c, Add(x, x), x));
  EXPECT_EQ(VerifyError(ModuleFromBlocks({c, x}, {{false, {{y, branch}}}}, y)), "<ok>");
  EXPECT_EQ(VerifyError(ModuleFromBlocks({c, x}, {{true, {{y, branch}}}}, y)),
            "in function @main, binding y: an if is not allowed inside a dataflow block (bind it after R.output)");
  relax::Expr by_vector(new relax::IfNode(x, x, x));
  EXPECT_EQ(VerifyError(ModuleFromBlocks({c, x}, {{false, {{y, by_vector}}}}, y)),
            "in function @main, binding y: the condition of an if must be a one-element bool or integer tensor, not "
            "Tensor((3,), float32)");
  relax::Expr nested(new relax::IfNode(c, Add(Add(x, x), x), x));
  EXPECT_NE(VerifyError(ModuleFromBlocks({c, x}, {{false, {{y, nested}}}}, y))
                .find("an if branch must be one call of "
                      "variables and constants"),
            std::string::npos);
}

TEST(StructInfo, JoinKeepsWhatBothBranchesShare) {
  relax::StructInfo a = relax::TensorSInfo({3}, DataType::Float32()), b = relax::TensorSInfo({0}, DataType::Float32());
  EXPECT_EQ(relax::StructInfoToString(relax::JoinStructInfo(a, a)), relax::StructInfoToString(a));
  EXPECT_EQ(relax::StructInfoToString(relax::JoinStructInfo(a, b)),
            relax::StructInfoToString(relax::TensorSInfoUnknownShape(DataType::Float32(), 1)));
  EXPECT_EQ(relax::JoinStructInfo(a, relax::TensorSInfo({3}, DataType::Int64()))->kind(), NodeKind::kTensorStructInfo);
  EXPECT_EQ(relax::JoinStructInfo(a, relax::TupleSInfo({a}))->kind(), NodeKind::kObjectStructInfo);
}

TEST(Verifier, RejectsDataflowVarOutsideItsBlock) {
  relax::Var x = TensorVar("x", {3});
  relax::Var lv = relax::MakeDataflowVar("lv", relax::TensorSInfo({3}, DataType::Float32()));
  relax::Var y = TensorVar("y", {3});
  EXPECT_EQ(VerifyError(ModuleFromBlocks({x}, {{true, {{lv, Add(x, x)}}}, {false, {{y, Add(lv, x)}}}}, y)),
            "in function @main, binding y: DataflowVar lv is used outside its dataflow block");
  EXPECT_EQ(VerifyError(ModuleFromBlocks({x}, {{false, {{lv, Add(x, x)}}}}, x)),
            "in function @main, binding lv: DataflowVar lv is bound outside a dataflow block");
}

TEST(Verifier, RejectsImpureCallsInDataflowBlocks) {
  relax::Var x = TensorVar("x", {3});
  relax::Call alloc =
      relax::MakeCall(relax::GetOpOrDie("alloc_tensor"), {relax::MakeShapeExpr(std::vector<int64_t>{3})},
                      {{"dtype", DataType::Float32()}});
  alloc->SetStructInfoOnce(*relax::InferCallStructInfo(*alloc, nullptr));
  relax::Var y = TensorVar("y", {3});
  EXPECT_EQ(VerifyError(ModuleFromBlocks({x}, {{true, {{y, alloc}}}}, y)),
            "in function @main, binding y: R.alloc_tensor has side effects and is not allowed inside a dataflow block");
}

TEST(Verifier, RejectsStructInfoMismatches) {
  relax::Var x = TensorVar("x", {3});
  relax::Var y = TensorVar("y", {4});
  EXPECT_EQ(VerifyError(ModuleFromBlocks({x}, {{false, {{y, Add(x, x)}}}}, y)),
            "in function @main, binding y: declared Tensor((4,), float32) but the value is Tensor((3,), float32)");
}

TEST(Verifier, RejectsCallTirToMissingFunction) {
  IRModule mod = testing::MyModule();
  mod.Remove("relu0");
  EXPECT_EQ(VerifyError(mod), "in function @main, binding lv1: reference to @relu0, which is not in the module");
}

TEST(Verifier, RejectsCallTirWithMismatchedBuffers) {
  IRModule mod = testing::MyModule();
  mod.Add("relu0", mod.Lookup("linear1"));  // four buffers where relu0 takes two
  EXPECT_THAT(VerifyError(mod), HasSubstr("passes 2 tensors (inputs and outputs) to @relu0, which takes 4 buffers"));
}

TEST(Serialization, RefusesTreesNestedDeeperThanTheLimit) {
  using namespace tir;  // NOLINT
  auto module_with_depth = [](int depth) {
    Buffer A = MakeBuffer("A", {I32(4)}, DataType::Float32());
    Var i = MakeVar("i"), vi = MakeVar("vi");
    PrimExpr value = F32(0);
    for (int d = 0; d < depth; ++d) value = value + F32(1);
    Stmt block = MakeBlockRealize("B", {{vi, {I32(0), I32(4)}, IterKind::kSpatial}}, {i}, Store(A, {vi}, value));
    IRModule mod;
    mod.Add("f", PrimFunc(new PrimFuncNode({A}, MakeRootBlock({}, MakeLoopNest({i}, {I32(4)}, block)), {})));
    return mod;
  };
  EXPECT_TRUE(
      DeserializeModule(SerializeModule(module_with_depth(GetResourceLimits().max_nesting_depth / 2)), "ok.irpb").ok());
  absl::StatusOr<IRModule> deep =
      DeserializeModule(SerializeModule(module_with_depth(GetResourceLimits().max_nesting_depth + 10)), "deep.irpb");
  ASSERT_FALSE(deep.ok());
  EXPECT_THAT(std::string(deep.status().message()), HasSubstr("nested more than 2000 levels deep"));
  EXPECT_THAT(std::string(deep.status().message()), HasSubstr("deep.irpb"));
  EXPECT_THAT(std::string(deep.status().message()), HasSubstr("--limits=max_nesting_depth"));
  // The limit is the process's: lowered, a tree the default accepts is refused.
  const ResourceLimits saved = GetResourceLimits();
  ResourceLimits lower = saved;
  lower.max_nesting_depth = 100;
  SetResourceLimits(lower);
  absl::StatusOr<IRModule> refused = DeserializeModule(SerializeModule(module_with_depth(200)), "lower.irpb");
  SetResourceLimits(saved);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(std::string(refused.status().message()), HasSubstr("nested more than 100 levels deep"));
}

TEST(Verifier, RejectsBufferIndexArity) {
  using namespace tir;  // NOLINT
  Buffer A = MakeBuffer("A", {I32(4), I32(4)}, DataType::Float32());
  Var i = MakeVar("i"), vi = MakeVar("vi");
  Stmt block = MakeBlockRealize("B", {{vi, {I32(0), I32(4)}, IterKind::kSpatial}}, {i}, Store(A, {vi}, F32(1)));
  IRModule mod;
  mod.Add("f", PrimFunc(new PrimFuncNode({A}, MakeRootBlock({}, MakeLoopNest({i}, {I32(4)}, block)), {})));
  EXPECT_EQ(VerifyError(mod), "in PrimFunc @f, block \"B\": store to A with 1 indices, but it has 2 dimensions");
}

TEST(Verifier, RejectsUnboundLoopVariables) {
  using namespace tir;  // NOLINT
  Buffer A = MakeBuffer("A", {I32(4)}, DataType::Float32());
  Var i = MakeVar("i"), stray = MakeVar("stray");
  IRModule mod;
  mod.Add("f", PrimFunc(new PrimFuncNode({A}, MakeLoopNest({i}, {I32(4)}, Store(A, {stray}, F32(1))), {})));
  EXPECT_EQ(VerifyError(mod), "in PrimFunc @f: variable stray is used outside the loop or block that binds it");
}

TEST(FileUtil, AtomicWriteLeavesNoTemporaries) {
  std::string path = absl::StrCat(::testing::TempDir(), "/atomic.txt");
  ASSERT_TRUE(WriteFileAtomically(path, "first").ok());
  ASSERT_TRUE(WriteFileAtomically(path, "second").ok());
  EXPECT_EQ(*ReadFile(path), "second");
  EXPECT_FALSE(WriteFileAtomically("/nonexistent/dir/file", "x").ok());
}

}  // namespace
}  // namespace mlc
