/*! \file seed_modules.cc
 *  \brief The seed chapters' modules, built node by node.
 */
#include "ir/testing/seed_modules.h"

#include <cstdlib>
#include <iostream>

#include "ir/graph/op.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/tir_util.h"

namespace mlc {
namespace testing {
namespace {

using namespace tir;  // NOLINT: construction code reads best unqualified.
using relax::Expr;
using relax::StructInfo;

const DataType kF32 = DataType::Float32();

Buffer Buf(const std::string& name, const std::vector<int64_t>& shape) {
  std::vector<PrimExpr> dims;
  for (int64_t d : shape) dims.push_back(I32(d));
  return MakeBuffer(name, dims, kF32);
}

IterVar Spatial(const Var& v, int64_t extent) { return {v, {I32(0), I32(extent)}, IterKind::kSpatial}; }
IterVar Reduce(const Var& v, int64_t extent) { return {v, {I32(0), I32(extent)}, IterKind::kReduce}; }

Attrs PublicAttrs(const std::string& name) { return {{"global_symbol", name}, {"tir.noalias", true}}; }

/*! \brief relu0: Y = max(X, 0) on (1, n). */
PrimFunc Relu(const std::string& name, int64_t n) {
  Buffer X = Buf("X", {1, n}), Y = Buf("Y", {1, n});
  Var i = MakeVar("i"), j = MakeVar("j"), vi = MakeVar("vi"), vj = MakeVar("vj");
  Stmt block = MakeBlockRealize("Y", {Spatial(vi, 1), Spatial(vj, n)}, {i, j},
                                Store(Y, {vi, vj}, Max(Load(X, {vi, vj}), F32(0))));
  Stmt body = MakeRootBlock({}, MakeLoopNest({i, j}, {I32(1), I32(n)}, block));
  return PrimFunc(new PrimFuncNode({X, Y}, body, PublicAttrs(name)));
}

/*! \brief linear: Z = X @ W.T + B with Y as an alloc_buffer, X (1, k), W (n, k). */
PrimFunc Linear(const std::string& name, int64_t k, int64_t n) {
  Buffer X = Buf("X", {1, k}), W = Buf("W", {n, k}), B = Buf("B", {n}), Z = Buf("Z", {1, n});
  Buffer Y = Buf("Y", {1, n});
  Var i = MakeVar("i"), j = MakeVar("j"), kk = MakeVar("k");
  Var vi = MakeVar("vi"), vj = MakeVar("vj"), vk = MakeVar("vk");
  Stmt matmul = MakeBlockRealize("Y", {Spatial(vi, 1), Spatial(vj, n), Reduce(vk, k)}, {i, j, kk},
                                 Store(Y, {vi, vj}, Load(Y, {vi, vj}) + Load(X, {vi, vk}) * Load(W, {vj, vk})),
                                 Store(Y, {vi, vj}, F32(0)));
  Var i2 = MakeVar("i"), j2 = MakeVar("j"), vi2 = MakeVar("vi"), vj2 = MakeVar("vj");
  Stmt add = MakeBlockRealize("Z", {Spatial(vi2, 1), Spatial(vj2, n)}, {i2, j2},
                              Store(Z, {vi2, vj2}, Load(Y, {vi2, vj2}) + Load(B, {vj2})));
  Stmt body = MakeRootBlock({Y}, MakeSeq({MakeLoopNest({i, j, kk}, {I32(1), I32(n), I32(k)}, matmul),
                                          MakeLoopNest({i2, j2}, {I32(1), I32(n)}, add)}));
  return PrimFunc(new PrimFuncNode({X, W, B, Z}, body, PublicAttrs(name)));
}

StructInfo T32(std::vector<int64_t> shape) { return relax::TensorSInfo(std::move(shape), kF32); }

/*! \brief Normalizes a call (infers its struct info) or aborts: these modules are fixed. */
relax::Call Normalized(relax::Call call, const IRModule* mod) {
  absl::StatusOr<StructInfo> sinfo = relax::InferCallStructInfo(*call, mod);
  if (!sinfo.ok()) {
    std::cerr << "seed module construction: " << sinfo.status() << "\n";
    std::abort();
  }
  call->SetStructInfoOnce(*sinfo);
  return call;
}

relax::Call CallTIR(const std::string& func, std::vector<Expr> args, StructInfo out) {
  return Normalized(relax::MakeCall(relax::GetOpOrDie("call_tir"),
                                    {relax::MakeGlobalVar(func), relax::MakeTuple(std::move(args))}, {}, {out}),
                    nullptr);
}

relax::Call CallPacked(const std::string& func, std::vector<Expr> args, StructInfo out) {
  return Normalized(relax::MakeCall(relax::GetOpOrDie("call_dps_packed"),
                                    {relax::MakeExternFunc(func), relax::MakeTuple(std::move(args))}, {}, {out}),
                    nullptr);
}

relax::Call CallOp(const std::string& op, std::vector<Expr> args, Attrs attrs = {}) {
  return Normalized(relax::MakeCall(relax::GetOpOrDie(op), std::move(args), std::move(attrs)), nullptr);
}

/*! \brief Collects bindings into blocks for a function body. */
class Body {
 public:
  relax::Var Bind(const std::string& name, Expr value, bool dataflow_var) {
    relax::Var v =
        dataflow_var ? relax::MakeDataflowVar(name, value->struct_info()) : relax::MakeVar(name, value->struct_info());
    current_.push_back(relax::VarBinding(new relax::VarBindingNode(v, value)));
    return v;
  }
  void EndBlock(bool dataflow) {
    blocks_.push_back(relax::BindingBlock(new relax::BindingBlockNode(std::move(current_), dataflow)));
    current_.clear();
  }
  relax::SeqExpr Finish(Expr result) { return relax::SeqExpr(new relax::SeqExprNode(blocks_, std::move(result))); }

 private:
  std::vector<relax::VarBinding> current_;
  std::vector<relax::BindingBlock> blocks_;
};

struct MlpParams {
  relax::Var x, w0, b0, w1, b1;
};
MlpParams MlpInputs() {
  return {relax::MakeVar("x", T32({1, 784})), relax::MakeVar("w0", T32({128, 784})), relax::MakeVar("b0", T32({128})),
          relax::MakeVar("w1", T32({10, 128})), relax::MakeVar("b1", T32({10}))};
}

relax::Function MainOf(const MlpParams& p, relax::SeqExpr body) {
  return relax::MakeFunction({p.x, p.w0, p.b0, p.w1, p.b1}, std::move(body), nullptr, {{"global_symbol", "main"}});
}

}  // namespace

IRModule MyModule() {
  IRModule mod;
  mod.Add("relu0", Relu("relu0", 128));
  mod.Add("linear0", Linear("linear0", 784, 128));
  mod.Add("linear1", Linear("linear1", 128, 10));
  MlpParams p = MlpInputs();
  Body body;
  relax::Var lv0 = body.Bind("lv0", CallTIR("linear0", {p.x, p.w0, p.b0}, T32({1, 128})), true);
  relax::Var lv1 = body.Bind("lv1", CallTIR("relu0", {lv0}, T32({1, 128})), true);
  relax::Var out = body.Bind("out", CallTIR("linear1", {lv1, p.w1, p.b1}, T32({1, 10})), false);
  body.EndBlock(true);
  mod.Add("main", MainOf(p, body.Finish(out)));
  return mod;
}

IRModule MyModuleWithExternCall() {
  IRModule mod;
  MlpParams p = MlpInputs();
  Body body;
  relax::Var lv0 = body.Bind("lv0", CallPacked("env.linear", {p.x, p.w0, p.b0}, T32({1, 128})), true);
  relax::Var lv1 = body.Bind("lv1", CallPacked("env.relu", {lv0}, T32({1, 128})), true);
  relax::Var out = body.Bind("out", CallPacked("env.linear", {lv1, p.w1, p.b1}, T32({1, 10})), false);
  body.EndBlock(true);
  mod.Add("main", MainOf(p, body.Finish(out)));
  return mod;
}

IRModule MyModuleMixture() {
  IRModule mod;
  mod.Add("linear0", Linear("linear0", 784, 128));
  MlpParams p = MlpInputs();
  Body body;
  relax::Var lv0 = body.Bind("lv0", CallTIR("linear0", {p.x, p.w0, p.b0}, T32({1, 128})), true);
  relax::Var lv1 = body.Bind("lv1", CallPacked("env.relu", {lv0}, T32({1, 128})), true);
  relax::Var out = body.Bind("out", CallPacked("env.linear", {lv1, p.w1, p.b1}, T32({1, 10})), false);
  body.EndBlock(true);
  mod.Add("main", MainOf(p, body.Finish(out)));
  return mod;
}

// The seed's example calls linear1 with a (1, 128) tensor where linear1's W is (10, 128) and
// asks for a (1, 128) result; it is written to show block structure and would read out of
// bounds if run, so the verifier rejects it. Here the second block calls linear1 with
// shapes it accepts; the block structure is the seed's.
IRModule TwoDataflowBlocks() {
  IRModule mod;
  mod.Add("relu0", Relu("relu0", 128));
  mod.Add("linear0", Linear("linear0", 784, 128));
  mod.Add("linear1", Linear("linear1", 128, 10));
  MlpParams p = MlpInputs();
  Body body;
  relax::Var lv0 = body.Bind("lv0", CallTIR("linear0", {p.x, p.w0, p.b0}, T32({1, 128})), true);
  relax::Var gv0 = body.Bind("gv0", CallTIR("relu0", {lv0}, T32({1, 128})), false);
  body.EndBlock(true);
  relax::Var gv1 = body.Bind(
      "gv1", CallOp("alloc_tensor", {relax::MakeShapeExpr(std::vector<int64_t>{1, 128})}, {{"dtype", kF32}}), false);
  body.EndBlock(false);
  (void)gv1;
  relax::Var out = body.Bind("out", CallTIR("linear1", {gv0, p.w1, p.b1}, T32({1, 10})), false);
  body.EndBlock(true);
  mod.Add("main", MainOf(p, body.Finish(out)));
  return mod;
}

IRModule ComposedMatmulRelu() {
  Buffer A = Buf("A", {128, 128}), B = Buf("B", {128, 128}), relu = Buf("relu", {128, 128});
  Buffer matmul = Buf("matmul", {128, 128});
  Var i = MakeVar("i"), j = MakeVar("j"), k = MakeVar("k");
  Var v_i = MakeVar("v_i"), v_j = MakeVar("v_j"), v_k = MakeVar("v_k");
  Stmt mm =
      MakeBlockRealize("matmul", {Spatial(v_i, 128), Spatial(v_j, 128), Reduce(v_k, 128)}, {i, j, k},
                       Store(matmul, {v_i, v_j}, Load(matmul, {v_i, v_j}) + Load(A, {v_i, v_k}) * Load(B, {v_k, v_j})),
                       Store(matmul, {v_i, v_j}, F32(0)));
  Var i0 = MakeVar("i0"), i1 = MakeVar("i1"), v_i0 = MakeVar("v_i0"), v_i1 = MakeVar("v_i1");
  Stmt r = MakeBlockRealize("relu", {Spatial(v_i0, 128), Spatial(v_i1, 128)}, {i0, i1},
                            Store(relu, {v_i0, v_i1}, Max(Load(matmul, {v_i0, v_i1}), F32(0))));
  Stmt body = MakeRootBlock({matmul}, MakeSeq({MakeLoopNest({i, j, k}, {I32(128), I32(128), I32(128)}, mm),
                                               MakeLoopNest({i0, i1}, {I32(128), I32(128)}, r)}));
  IRModule mod;
  mod.Add("main", PrimFunc(new PrimFuncNode({A, B, relu}, body, {{"tir.noalias", true}})));
  return mod;
}

IRModule EwiseModule() {
  relax::Var x = relax::MakeVar("x", T32({3, 4})), y = relax::MakeVar("y", T32({3, 4}));
  Body body;
  relax::Var lv0 = body.Bind("lv0", CallOp("multiply", {x, y}), true);
  relax::Var gv0 = body.Bind("gv0", CallOp("add", {lv0, y}), false);
  body.EndBlock(true);
  IRModule mod;
  mod.Add("main", relax::MakeFunction({x, y}, body.Finish(gv0), nullptr, {{"global_symbol", "main"}}));
  return mod;
}

std::vector<std::pair<std::string, IRModule>> AllSeedModules() {
  return {{"my_module", MyModule()},
          {"my_module_with_extern_call", MyModuleWithExternCall()},
          {"my_module_mixture", MyModuleMixture()},
          {"two_dataflow_blocks", TwoDataflowBlocks()},
          {"composed_matmul_relu", ComposedMatmulRelu()},
          {"ewise_module", EwiseModule()}};
}

}  // namespace testing
}  // namespace mlc
