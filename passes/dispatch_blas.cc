/*! \file dispatch_blas.cc
 *  \brief dispatch-blas: hands float32 nn.conv2d, nn.dense and matmul to the BLAS runtime
 *         functions (vm/library/blas_functions.cc) as R.call_dps_packed calls.
 *
 *  Run it before fuse-ops: what it rewrites is no longer fused; run remove-unused after it, to
 *  drop the convolutions and adds an epilogue absorbed. A convolution's constant
 *  per-channel bias add and ReLU run inside the call when nothing else uses the intermediate
 *  results (mlc.blas.conv2d's epilogue); other adds and activations fuse with each other.
 *  Calls with dynamic shapes, other dtypes or broadcast batch dimensions are left to legalize.
 *  conv2d's geometry travels as a 10-element int64 constant (strides, padding, dilation,
 *  groups, epilogue).
 */
#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ir/graph/op.h"
#include "ir/ops/op_attrs.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief conv2d's window geometry for mlc.blas.conv2d: strides, padding, dilation, groups and
 *  the epilogue (0: none, 1: ReLU). */
relax::Expr Geometry(const relax::Conv2DAttrs& a, int64_t epilogue) {
  std::vector<int64_t> g = a.strides;
  g.insert(g.end(), a.padding.begin(), a.padding.end());
  g.insert(g.end(), a.dilation.begin(), a.dilation.end());
  g.push_back(a.groups);
  g.push_back(epilogue);
  return relax::MakeConstant(Int64Tensor(g));
}

/*! \brief The conv2d call's attributes (the call was verified, so they parse). */
relax::Conv2DAttrs ConvAttrs(const relax::CallNode& conv) { return *relax::ParseAttrs<relax::Conv2DAttrs>(conv.attrs); }

class DispatchBlasPass : public FunctionPass {
 public:
  std::string name() const override { return "dispatch-blas"; }
  std::string description() const override {
    return "Replaces float32 nn.conv2d, nn.dense and matmul (a[..., N, K] @ b[K, M], or equal batch dimensions) with "
           "static shapes by R.call_dps_packed calls of the OpenBLAS-backed runtime functions mlc.blas.conv2d / "
           "mlc.blas.dense / mlc.blas.matmul. A constant per-channel bias add and a ReLU after a convolution whose "
           "result has no other use run inside the call (the absorbed bindings are left for remove-unused). Run "
           "before fuse-ops.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& f, relax::BlockBuilder* bb) override {
    std::set<std::string> ops;
    for (absl::string_view op : absl::StrSplit(*ops_, ',', absl::SkipEmpty())) {
      if (op != "conv2d" && op != "dense" && op != "matmul") {
        return absl::InvalidArgumentError(
            absl::StrCat("dispatch-blas: ops: unknown operator '", op, "' (conv2d, dense, matmul)"));
      }
      ops.insert(std::string(op));
    }
    relax::Function current = f;
    if (ops.count("conv2d")) {
      absl::StatusOr<relax::Function> fused = FuseConvEpilogues(current, bb);
      if (!fused.ok()) return fused.status();
      current = *fused;
    }
    return DispatchRest(current, ops, bb);
  }

 private:
  Option<std::string> ops_{this, "ops", "conv2d,dense,matmul", "the operators to dispatch, of conv2d, dense, matmul"};

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
          if (!ConvAttrs(*conv_call).IsDefaultLayout()) return matched;
          if (!StaticFloat32(m[x], 4) || !StaticFloat32(m[w], 4) || !StaticFloat32(matched, 4)) return matched;
          int64_t channels = (*m[w]->struct_info().as<relax::TensorStructInfoNode>()->shape)[0];
          std::optional<TensorData> b = PerChannelValues(m[bias], channels);
          if (!b) return matched;
          return CallDpsPacked(
              "mlc.blas.conv2d",
              {m[x], m[w], Geometry(ConvAttrs(*conv_call), with_relu ? 1 : 0), relax::MakeConstant(*b)}, matched);
        },
        builder);
  }

  static absl::StatusOr<relax::Function> DispatchRest(const relax::Function& func, const std::set<std::string>& ops,
                                                      relax::BlockBuilder* builder) {
    Pattern a = Wildcard(), b = Wildcard();
    Pattern pattern = IsOp("nn.conv2d")({a, b}) | IsOp("nn.dense")({a, b}) | IsOp("matmul")({a, b});
    return Rewrite(
        pattern, func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          const auto* call = matched.as<relax::CallNode>();
          const std::string& op = call->op.as<relax::OpNode>()->name();
          if (!ops.count(op == "nn.conv2d" ? "conv2d" : op == "nn.dense" ? "dense" : "matmul")) return matched;
          if (op == "nn.conv2d") {
            if (!ConvAttrs(*call).IsDefaultLayout()) return matched;
            if (!StaticFloat32(m[a], 4) || !StaticFloat32(m[b], 4) || !StaticFloat32(matched, 4)) return matched;
            return CallDpsPacked("mlc.blas.conv2d", {m[a], m[b], Geometry(ConvAttrs(*call), 0)}, matched);
          }
          if (op == "nn.dense") {
            if (!StaticFloat32(m[a], 2) || !StaticFloat32(m[b], 2) || !StaticFloat32(matched, 2)) return matched;
            return CallDpsPacked("mlc.blas.dense", {m[a], m[b]}, matched);
          }
          // matmul: a[..., N, K] @ b[K, M], or equal batch dimensions on both sides.
          const auto* ta = m[a]->struct_info().as<relax::TensorStructInfoNode>();
          const auto* tb = m[b]->struct_info().as<relax::TensorStructInfoNode>();
          if (ta == nullptr || tb == nullptr || !ta->shape || !tb->shape) return matched;
          size_t ra = ta->shape->size(), rb = tb->shape->size();
          if (ra < 2 || rb < 2 || !StaticFloat32(m[a], ra) || !StaticFloat32(m[b], rb) || !StaticFloat32(matched, ra))
            return matched;
          if (rb != 2 && (rb != ra || !std::equal(ta->shape->begin(), ta->shape->end() - 2, tb->shape->begin())))
            return matched;
          return CallDpsPacked("mlc.blas.matmul", {m[a], m[b]}, matched);
        },
        builder);
  }
};

MLC_REGISTER_PASS(DispatchBlasPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
