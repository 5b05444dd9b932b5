/*! \file fold_repeat_kv.cc
 *  \brief fold-repeat-kv: grouped-query attention without repeating the keys and values.
 *
 *  Exports of grouped-query attention (Llama, Mistral, ...) repeat each key/value head for the
 *  G query heads that share it (Hugging Face's repeat_kv) before the two attention matmuls:
 *
 *    rep = reshape(broadcast_to(reshape(k, [..., KV, 1, S, D]), [..., KV, G, S, D]), [..., KV*G, S, D])
 *    scores = matmul(q, permute_dims(rep))    q [..., H, T, D], H = KV*G
 *    out    = matmul(p, rep)                  p [..., H, T, S]
 *
 *  which copies the cache G times per step. Since query head h = kv * G + g, the G heads of one
 *  key/value head are G consecutive row blocks of T rows, so the same products are
 *
 *    scores = reshape(matmul(reshape(q, [..., KV, G*T, D]), permute_dims(k)), [..., H, T, S])
 *    out    = reshape(matmul(reshape(p, [..., KV, G*T, S]), k), [..., H, T, D])
 *
 *  reading k once. The reshapes move q, p and the result (T rows: one at a decode step), not the
 *  cache (S rows).
 */
#include <vector>

#include "ir/graph/op.h"
#include "ir/ops/op_attrs.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"
#include "passes/pass.h"
#include "passes/pattern.h"
#include "passes/repeat_kv.h"

namespace mlc {
namespace passes {
namespace {

class FoldRepeatKvPass : public FunctionPass {
 public:
  std::string name() const override { return "fold-repeat-kv"; }
  std::string description() const override {
    return "Grouped-query attention without repeating keys and values: matmul(q, permute_dims(rep)) and matmul(p, "
           "rep), "
           "with rep = reshape(broadcast_to(reshape(k))) repeating each of KV heads G times, become matmuls of q and p "
           "viewed as KV groups of G*T rows against k itself (reshapes of the T-row operands and results instead of G "
           "copies of the cache).";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& f, relax::BlockBuilder* bb) override {
    RepeatKvPattern kv;
    Pattern q = Wildcard();
    Pattern transposed = IsOp("permute_dims")({kv.rep});
    Pattern scores = IsOp("matmul")({q, transposed}), weighted = IsOp("matmul")({q, kv.rep});
    return Rewrite(
        scores | weighted, f,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          const std::vector<tir::PrimExpr> kd = DimsOf(m[kv.k]), qd = DimsOf(m[q]), od = DimsOf(matched);
          const size_t n = kd.size();
          std::optional<HeadRepeat> repeat = MatchHeadRepeat(m, kv);
          if (!repeat || qd.size() != n || od.size() != n) return matched;
          const int64_t heads = repeat->kv_heads * repeat->groups, kv_heads = repeat->kv_heads, g = repeat->groups;
          const bool is_scores = m[transposed].defined();
          if (is_scores && !SwapsLastTwoAxes(m[transposed], n)) return matched;
          // q [..., H, T, X] with the batch dimensions of k.
          const int64_t* q_heads = tir::AsConstInt(qd[n - 3]);
          if (q_heads == nullptr || *q_heads != heads) return matched;
          for (size_t i = 0; i + 3 < n; ++i) {
            if (!SameDim(qd[i], kd[i])) return matched;
          }
          const auto* qt = m[q]->struct_info().as<relax::TensorStructInfoNode>();
          const auto* ot = matched->struct_info().as<relax::TensorStructInfoNode>();
          std::vector<tir::PrimExpr> grouped(qd.begin(), qd.end());
          grouped[n - 3] = tir::IntImm(DataType::Int64(), kv_heads);
          grouped[n - 2] = qd[n - 2] * g;
          auto reshape = [](const relax::Expr& x, const std::vector<tir::PrimExpr>& dims, DataType dtype) {
            return relax::MakeCall(relax::GetOpOrDie("reshape"), {x}, {}, {relax::TensorSInfoOfDims(dims, dtype)});
          };
          // Nested calls: the mutator binds the inner ones first (its normal form).
          relax::Expr rhs = is_scores ? relax::MakeCall(relax::GetOpOrDie("permute_dims"), {m[kv.k]},
                                                        m[transposed].as<relax::CallNode>()->attrs)
                                      : m[kv.k];
          relax::Expr product = relax::MakeCall(relax::GetOpOrDie("matmul"), {reshape(m[q], grouped, qt->dtype), rhs},
                                                matched.as<relax::CallNode>()->attrs);
          return reshape(product, od, ot->dtype);
        },
        bb);
  }
};

MLC_REGISTER_PASS(FoldRepeatKvPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
