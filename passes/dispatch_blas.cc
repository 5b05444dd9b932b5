/*! \file dispatch_blas.cc
 *  \brief dispatch-blas: hands float32 nn.conv2d, nn.dense and matmul to the BLAS runtime
 *         functions (vm/library/blas_functions.cc) as R.call_dps_packed calls.
 *
 *  Run it before fuse-ops: what it rewrites is no longer fused, so the bias adds and
 *  activations around a dispatched call fuse with each other instead. Calls with dynamic
 *  shapes, other dtypes or broadcast batch dimensions are left to legalize. conv2d's window geometry travels as a
 *  9-element int64 constant (strides, padding, dilation, groups).
 */
#include <algorithm>
#include <cstring>

#include "ir/op.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

const relax::TensorStructInfoNode* StaticF32(const relax::Expr& e, size_t rank) {
  const auto* t = e->struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || !t->shape || t->dtype != DataType::Float32() || t->shape->size() != rank) return nullptr;
  return t;
}

std::vector<int64_t> Ints(const relax::CallNode& call, const std::string& name, size_t n, std::vector<int64_t> fallback) {
  auto it = call.attrs.find(name);
  if (it == call.attrs.end() || !it->second.is<std::vector<int64_t>>()) return fallback;
  std::vector<int64_t> v = it->second.get<std::vector<int64_t>>();
  if (v.size() == 1) v.assign(n, v[0]);
  return v.size() == n ? v : fallback;
}

relax::Expr CallPacked(const std::string& name, std::vector<relax::Expr> args, const relax::Expr& matched) {
  return relax::MakeCall(relax::GetOpOrDie("call_dps_packed"), {relax::MakeExternFunc(name), relax::MakeTuple(std::move(args))},
                         {}, {matched->struct_info()});
}

class DispatchBlasPass : public FunctionPass {
 public:
  std::string name() const override { return "dispatch-blas"; }
  std::string description() const override {
    return "Replaces float32 nn.conv2d, nn.dense and matmul (a[..., N, K] @ b[K, M], or equal batch dimensions) with "
           "static shapes by R.call_dps_packed calls of "
           "the OpenBLAS-backed runtime functions mlc.blas.conv2d / mlc.blas.dense / mlc.blas.matmul. Run before "
           "fuse-ops.";
  }

 protected:
  bool skip_primitive() const override { return true; }

  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, const IRModule& mod) override {
    Pattern a = Wildcard(), b = Wildcard();
    Pattern pattern = IsOp("nn.conv2d")({a, b}) | IsOp("nn.dense")({a, b}) | IsOp("matmul")({a, b});
    relax::BlockBuilder builder(mod);
    return Rewrite(
        pattern, func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          const auto* call = matched.as<relax::CallNode>();
          const std::string& op = call->op.as<relax::OpNode>()->name();
          if (op == "nn.conv2d") {
            if (!StaticF32(m[a], 4) || !StaticF32(m[b], 4) || !StaticF32(matched, 4)) return matched;
            std::vector<int64_t> geometry = Ints(*call, "strides", 2, {1, 1});
            for (int64_t v : Ints(*call, "padding", 4, {0, 0, 0, 0})) geometry.push_back(v);
            for (int64_t v : Ints(*call, "dilation", 2, {1, 1})) geometry.push_back(v);
            geometry.push_back(GetIntAttr(call->attrs, "groups", 1));
            TensorData g(DataType::Int64(), {9});
            std::memcpy(g.mutable_data(), geometry.data(), 9 * sizeof(int64_t));
            return CallPacked("mlc.blas.conv2d", {m[a], m[b], relax::MakeConstant(g)}, matched);
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
        &builder);
  }
};

MLC_REGISTER_PASS(DispatchBlasPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
