/*! \file repeat_kv.cc
 *  \brief Matching Hugging Face's repeat_kv (see repeat_kv.h).
 */
#include "passes/repeat_kv.h"

#include <vector>

#include "ir/graph/op.h"
#include "ir/ops/op_attrs.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"

namespace mlc {
namespace passes {
namespace {

bool ConstantDim(const tir::PrimExpr& e, int64_t* value) {
  const int64_t* v = tir::AsConstInt(e);
  if (v == nullptr) return false;
  *value = *v;
  return true;
}

}  // namespace

RepeatKvPattern::RepeatKvPattern(Pattern repeated)
    : k(std::move(repeated)),
      expand(IsOp("reshape")({k})),
      repeat(IsOp("broadcast_to")({expand})),
      rep(IsOp("reshape")({repeat})) {}

std::optional<HeadRepeat> MatchHeadRepeat(const Match& m, const RepeatKvPattern& pattern) {
  const std::vector<tir::PrimExpr> kd = DimsOf(m[pattern.k]), ed = DimsOf(m[pattern.expand]),
                                   bd = DimsOf(m[pattern.repeat]), rd = DimsOf(m[pattern.rep]);
  const size_t n = kd.size();
  if (n < 3 || ed.size() != n + 1 || bd.size() != n + 1 || rd.size() != n) return std::nullopt;
  // k [..., KV, S, D] -> [..., KV, 1, S, D] -> [..., KV, G, S, D] -> [..., KV*G, S, D].
  HeadRepeat r;
  int64_t one = 0, heads = 0;
  if (!ConstantDim(kd[n - 3], &r.kv_heads) || !ConstantDim(ed[n - 2], &one) || one != 1 ||
      !ConstantDim(bd[n - 2], &r.groups) || r.groups < 2 || !ConstantDim(rd[n - 3], &heads) ||
      heads != r.kv_heads * r.groups) {
    return std::nullopt;
  }
  for (size_t i = 0; i + 2 < n; ++i) {
    if (!SameDim(ed[i], kd[i]) || !SameDim(bd[i], kd[i]) || (i + 3 < n && !SameDim(rd[i], kd[i]))) return std::nullopt;
  }
  for (size_t i = n - 2; i < n; ++i) {
    if (!SameDim(ed[i + 1], kd[i]) || !SameDim(bd[i + 1], kd[i]) || !SameDim(rd[i], kd[i])) return std::nullopt;
  }
  return r;
}

bool SwapsLastTwoAxes(const relax::Expr& call, size_t n) {
  if (n < 2) return false;
  std::vector<int64_t> swap_last(n);
  for (size_t i = 0; i < n; ++i) swap_last[i] = static_cast<int64_t>(i);
  std::swap(swap_last[n - 1], swap_last[n - 2]);
  return PermutesBy(call, swap_last);
}

}  // namespace passes
}  // namespace mlc
