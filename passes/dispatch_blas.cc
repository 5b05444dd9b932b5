/*! \file dispatch_blas.cc
 *  \brief dispatch-blas: hands float32 nn.conv2d, nn.dense and matmul to the BLAS runtime
 *         functions (vm/library/blas_functions.cc) as R.call_dps_packed calls.
 *
 *  Run it before fuse-ops: what it rewrites is no longer fused. A convolution's constant
 *  per-channel bias add and ReLU run inside the call when nothing else uses the intermediate
 *  results (mlc.blas.conv2d's epilogue); other adds and activations fuse with each other.
 *  Calls with dynamic shapes, other dtypes or broadcast batch dimensions are left to legalize.
 *  conv2d's geometry travels as a 10-element int64 constant (strides, padding, dilation,
 *  groups, epilogue).
 */
#include <algorithm>
#include <cstring>
#include <map>
#include <optional>

#include "ir/op.h"
#include "passes/pass.h"
#include "passes/pattern.h"
#include "passes/remove_unused.h"

namespace mlc {
namespace passes {
namespace {

const relax::TensorStructInfoNode* StaticF32(const relax::Expr& e, size_t rank) {
  const auto* t = e->struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || !t->shape || t->dtype != DataType::Float32() || t->shape->size() != rank) return nullptr;
  return t;
}

relax::Expr CallPacked(const std::string& name, std::vector<relax::Expr> args, const relax::Expr& matched) {
  return relax::MakeCall(relax::GetOpOrDie("call_dps_packed"), {relax::MakeExternFunc(name), relax::MakeTuple(std::move(args))},
                         {}, {matched->struct_info()});
}

/*! \brief conv2d's window geometry for mlc.blas.conv2d: strides, padding, dilation, groups and
 *  the epilogue (0: none, 1: ReLU). */
relax::Expr Geometry(const relax::CallNode& conv, int64_t epilogue) {
  std::vector<int64_t> g = GetIntsAttr(conv.attrs, "strides", {1, 1}, 2);
  for (int64_t v : GetIntsAttr(conv.attrs, "padding", {0, 0, 0, 0}, 4)) g.push_back(v);
  for (int64_t v : GetIntsAttr(conv.attrs, "dilation", {1, 1}, 2)) g.push_back(v);
  g.push_back(GetIntAttr(conv.attrs, "groups", 1));
  g.push_back(epilogue);
  TensorData t(DataType::Int64(), {static_cast<int64_t>(g.size())});
  std::memcpy(t.mutable_data(), g.data(), g.size() * sizeof(int64_t));
  return relax::MakeConstant(t);
}

class DispatchBlasPass : public Pass {
 public:
  std::string name() const override { return "dispatch-blas"; }
  std::string description() const override {
    return "Replaces float32 nn.conv2d, nn.dense and matmul (a[..., N, K] @ b[K, M], or equal batch dimensions) with "
           "static shapes by R.call_dps_packed calls of the OpenBLAS-backed runtime functions mlc.blas.conv2d / "
           "mlc.blas.dense / mlc.blas.matmul. A constant per-channel bias add and a ReLU after a convolution whose "
           "result has no other use run inside the call. Run before fuse-ops.";
  }

  absl::StatusOr<IRModule> Run(const IRModule& mod) override {
    relax::BlockBuilder builder(mod);
    for (const auto& [name, func] : mod.functions()) {
      relax::Function f = func.as_ref<relax::Function>();
      if (!f.defined() || f->IsPrimitive()) continue;
      absl::StatusOr<relax::Function> fused = FuseConvEpilogues(f, &builder);
      if (!fused.ok()) return fused.status();
      absl::StatusOr<relax::Function> rewritten = DispatchRest(*fused, &builder);
      if (!rewritten.ok()) return rewritten.status();
      if (absl::Status s = builder.UpdateFunc(name, *rewritten); !s.ok()) return s;
    }
    // The convolutions and adds an epilogue absorbed are left unused.
    return CreateRemoveUnusedPass()->Run(builder.Get());
  }

 private:
  /*! \brief relu(add(conv2d(x, w), bias)), then add(conv2d(x, w), bias) -> one mlc.blas.conv2d.
   *  (Two rounds: bindings are rewritten in order, so the add alone would match first.) */
  static absl::StatusOr<relax::Function> FuseConvEpilogues(const relax::Function& func, relax::BlockBuilder* builder) {
    absl::StatusOr<relax::Function> f = FuseConvEpilogue(func, /*with_relu=*/true, builder);
    if (!f.ok()) return f;
    return FuseConvEpilogue(*f, /*with_relu=*/false, builder);
  }

  static absl::StatusOr<relax::Function> FuseConvEpilogue(const relax::Function& func, bool with_relu,
                                                          relax::BlockBuilder* builder) {
    std::map<const relax::VarNode*, int> uses = CountVarUses(func);
    Pattern x = Wildcard(), w = Wildcard(), bias = IsConst();
    Pattern conv = IsOp("nn.conv2d")({x, w});
    Pattern add = IsOp("add")({conv, bias});
    auto single_use = [&](const relax::Expr& e) {
      const auto* v = e.as<relax::VarNode>();
      return v != nullptr && uses[v] == 1;
    };
    return Rewrite(
        with_relu ? IsOp("nn.relu")({add}) : add, func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          const auto* outer = matched.as<relax::CallNode>();
          const auto* add_call = m[add].as<relax::CallNode>();
          if ((with_relu && !single_use(outer->args[0])) || !single_use(add_call->args[0])) return matched;
          const relax::CallNode* conv_call = m[conv].as<relax::CallNode>();
          if (!StaticF32(m[x], 4) || !StaticF32(m[w], 4) || !StaticF32(matched, 4)) return matched;
          int64_t channels = (*m[w]->struct_info().as<relax::TensorStructInfoNode>()->shape)[0];
          std::optional<TensorData> b = PerChannelValues(m[bias], channels);
          if (!b) return matched;
          return CallPacked("mlc.blas.conv2d", {m[x], m[w], Geometry(*conv_call, with_relu ? 1 : 0), relax::MakeConstant(*b)},
                            matched);
        },
        builder);
  }

  static absl::StatusOr<relax::Function> DispatchRest(const relax::Function& func, relax::BlockBuilder* builder) {
    Pattern a = Wildcard(), b = Wildcard();
    Pattern pattern = IsOp("nn.conv2d")({a, b}) | IsOp("nn.dense")({a, b}) | IsOp("matmul")({a, b});
    return Rewrite(
        pattern, func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          const auto* call = matched.as<relax::CallNode>();
          const std::string& op = call->op.as<relax::OpNode>()->name();
          if (op == "nn.conv2d") {
            if (!StaticF32(m[a], 4) || !StaticF32(m[b], 4) || !StaticF32(matched, 4)) return matched;
            return CallPacked("mlc.blas.conv2d", {m[a], m[b], Geometry(*call, 0)}, matched);
          }
          if (op == "nn.dense") {
            if (!StaticF32(m[a], 2) || !StaticF32(m[b], 2) || !StaticF32(matched, 2)) return matched;
            return CallPacked("mlc.blas.dense", {m[a], m[b]}, matched);
          }
          // matmul: a[..., N, K] @ b[K, M], or equal batch dimensions on both sides.
          const auto* ta = m[a]->struct_info().as<relax::TensorStructInfoNode>();
          const auto* tb = m[b]->struct_info().as<relax::TensorStructInfoNode>();
          if (ta == nullptr || tb == nullptr || !ta->shape || !tb->shape) return matched;
          size_t ra = ta->shape->size(), rb = tb->shape->size();
          if (ra < 2 || rb < 2 || !StaticF32(m[a], ra) || !StaticF32(m[b], rb) || !StaticF32(matched, ra)) return matched;
          if (rb != 2 && (rb != ra || !std::equal(ta->shape->begin(), ta->shape->end() - 2, tb->shape->begin()))) return matched;
          return CallPacked("mlc.blas.matmul", {m[a], m[b]}, matched);
        },
        builder);
  }
};

MLC_REGISTER_PASS(DispatchBlasPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
