/*! \file commute_transpose_matmul.cc
 *  \brief commute-transpose-matmul: matmul(permute_dims(x, p), w) with a 2-D w and p keeping
 *         the last axis last -> permute_dims(matmul(x, w), p). The weight acts on the last axis
 *         only, so the two commute; the GEMM then reads x in its own layout. It matters for
 *         symbolic shapes: attention exported from PyTorch transposes (batch, seq, d) to
 *         (seq, batch, d) before its in-projection, and with a symbolic batch the GEMM rule
 *         can tile only the batch as rows there (one partial tile per position); on x the
 *         rows are the sequence. Static shapes fold all rows into one GEMM either way, so the
 *         pass leaves them alone.
 */
#include "ir/graph/op.h"
#include "ir/ops/op_attrs.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

class CommuteTransposeMatmulPass : public FunctionPass {
 public:
  std::string name() const override { return "commute-transpose-matmul"; }
  std::string description() const override {
    return "Rewrites matmul(permute_dims(x, p), w) with a 2-D w and p keeping the last axis as permute_dims(matmul(x, "
           "w), "
           "p) when x has symbolic dimensions, so the GEMM reads x in its own layout (the rows it can tile are then "
           "the "
           "contiguous ones).";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* builder) override {
    Pattern x = Wildcard(), w = Wildcard();
    Pattern transposed = IsOp("permute_dims")({x});
    return Rewrite(
        IsOp("matmul")({transposed, w}), func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          const auto* xt = m[x]->struct_info().as<relax::TensorStructInfoNode>();
          const auto* wt = m[w]->struct_info().as<relax::TensorStructInfoNode>();
          const auto* perm_call = m[transposed].as<relax::CallNode>();
          const auto* mm = matched.as<relax::CallNode>();
          if (xt == nullptr || wt == nullptr || perm_call == nullptr || !xt->IsSymbolic() || wt->ndim != 2 ||
              xt->ndim < 2) {
            return matched;
          }
          absl::StatusOr<relax::PermuteDimsAttrs> p = relax::ParseAttrs<relax::PermuteDimsAttrs>(perm_call->attrs);
          if (!p.ok() || static_cast<int>(p->axes.size()) != xt->ndim)
            return matched;  // reversal (None) moves the last axis
          int64_t last = p->axes.back() < 0 ? p->axes.back() + xt->ndim : p->axes.back();
          if (last != xt->ndim - 1) return matched;
          relax::Expr product = relax::MakeCall(mm->op, {m[x], m[w]}, mm->attrs);
          return relax::MakeCall(perm_call->op, {product}, perm_call->attrs);
        },
        builder);
  }
};

MLC_REGISTER_PASS(CommuteTransposeMatmulPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
