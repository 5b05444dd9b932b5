/*! \file fuse_attention.cc
 *  \brief fuse-attention: scaled dot-product attention as one call of mlc.attention.
 *
 *  Exported attention (PyTorch's eager attention, Hugging Face's models) is a chain
 *
 *    s = matmul(q, permute_dims(k))          q [..., H, T, D], k [..., H, S, D]
 *    s = divide(s, c) or multiply(s, c)      c a scalar constant (optional)
 *    s = where(m, fill, s), where(m, s, fill) or add(s, m)   a mask (optional)
 *    out = matmul(softmax(s, axis=-1), v)    v [..., H, S, E]
 *
 *  whose intermediates are [..., H, T, S]. Unfused it is about ten kernels per layer, and
 *  the keys are transposed (copied) every call; at a decode step (T = 1) each of those
 *  kernels is microseconds of work behind a launch. mlc.attention (vm/library/attention.cc)
 *  computes the chain in one pass over the keys and values. Keys and values that only repeat
 *  KV heads for H query heads (repeat_kv) are passed unrepeated: the kernel groups the query
 *  heads itself. Run before fold-repeat-kv, which then sees only the attention left unfused.
 */
#include <optional>
#include <vector>

#include "ir/graph/op.h"
#include "ir/ops/op_attrs.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"
#include "passes/pass.h"
#include "passes/pattern.h"
#include "passes/repeat_kv.h"
#include "support/attention_params.h"
#include "support/tensor_data.h"

namespace mlc {
namespace passes {
namespace {

DataType DtypeOf(const relax::Expr& e) {
  const auto* t = e->struct_info().as<relax::TensorStructInfoNode>();
  return t == nullptr ? DataType() : t->dtype;
}

/*! \brief The value of a float32 constant holding one element. */
std::optional<float> ScalarConstant(const relax::Expr& e) {
  const auto* c = e.as<relax::ConstantNode>();
  if (c == nullptr || c->data.dtype() != DataType::Float32() || c->data.NumElements() != 1) return std::nullopt;
  return c->data.data_as<float>()[0];
}

/*! \brief Whether a tensor of `dims` broadcasts to `to` without growing it (aligned on the right). */
bool BroadcastsTo(const std::vector<tir::PrimExpr>& dims, const std::vector<tir::PrimExpr>& to) {
  if (dims.empty() || dims.size() > to.size()) return false;
  for (size_t i = 0; i < dims.size(); ++i) {
    const tir::PrimExpr& d = dims[dims.size() - 1 - i];
    if (!tir::IsConstInt(d, 1) && !SameDim(d, to[to.size() - 1 - i])) return false;
  }
  return true;
}

std::vector<int64_t> Iota(size_t n) {
  std::vector<int64_t> axes(n);
  for (size_t i = 0; i < n; ++i) axes[i] = static_cast<int64_t>(i);
  return axes;
}

/*! \brief The permutation between [..., KV, S, D] and [..., S, KV, D] (its own inverse). */
std::vector<int64_t> SequenceMajorSwap(size_t n) {
  std::vector<int64_t> axes = Iota(n);
  std::swap(axes[n - 3], axes[n - 2]);
  return axes;
}

class FuseAttentionPass : public FunctionPass {
 public:
  std::string name() const override { return "fuse-attention"; }
  std::string description() const override {
    return "Scaled dot-product attention, matmul(softmax(mask(scale(matmul(q, permute_dims(k))))), v) (the permutation "
           "swapping "
           "the keys' last two axes, or bringing them from another layout in the same step) with an optional scalar "
           "scale (divide or multiply), an optional mask (where with a scalar fill, either way round, or an added "
           "float mask) and "
           "softmax over the last axis, becomes one R.call_dps_packed of mlc.attention; keys and values repeated per "
           "query head "
           "(repeat_kv) are passed unrepeated (grouped-query attention). Intermediates with other uses keep it "
           "unfused. Run after "
           "fold-constant, before fold-repeat-kv.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& f, relax::BlockBuilder* bb) override {
    // Keys and values may be a sequence-major tensor x [..., S, KV, D] viewed head-major by a
    // permute_dims (a cache that kv-cache-append grows in place); the kernel then reads x itself.
    Pattern kx = Wildcard(), vx = Wildcard(), k = Wildcard(), v = Wildcard();
    Pattern kperm = IsOp("permute_dims")({kx}), vperm = IsOp("permute_dims")({vx});
    Pattern kin = kperm | k, vin = vperm | v;
    RepeatKvPattern krep(kin), vrep(vin);
    Pattern q = Wildcard(), c = IsConst(), m = Wildcard(), fill = IsConst();
    Pattern kt = IsOp("permute_dims")({krep.rep | kin});
    Pattern scores = IsOp("matmul")({q, kt});
    Pattern divided = IsOp("divide")({scores, c}), multiplied = IsOp("multiply")({scores, c});
    Pattern scaled = divided | multiplied | scores;
    Pattern fill_where_true = IsOp("where")({m, fill, scaled}), keep_where_true = IsOp("where")({m, scaled, fill});
    Pattern added = IsOp("add")({scaled, m});
    Pattern probs = IsOp("nn.softmax")({fill_where_true | keep_where_true | added | scaled});
    Pattern out = IsOp("matmul")({probs, vrep.rep | vin});
    const std::map<const relax::VarNode*, int> uses = CountVarUses(f);
    return Rewrite(
        out, f,
        [&](const relax::Expr& matched, const Match& mt, relax::BlockBuilder*) -> relax::Expr {
          // The intermediates must have no other use, or they would be computed anyway: each call
          // of the chain reads its predecessor through a variable used once.
          auto arg = [&](const Pattern& p, size_t i) { return mt[p].as<relax::CallNode>()->args[i]; };
          std::vector<relax::Expr> links = {matched.as<relax::CallNode>()->args[0], arg(probs, 0), arg(scores, 1)};
          if (mt[divided].defined()) links.push_back(arg(divided, 0));
          if (mt[multiplied].defined()) links.push_back(arg(multiplied, 0));
          if (mt[fill_where_true].defined()) links.push_back(arg(fill_where_true, 2));
          if (mt[keep_where_true].defined()) links.push_back(arg(keep_where_true, 1));
          if (mt[added].defined()) links.push_back(arg(added, 0));
          for (const relax::Expr& link : links) {
            const auto* var = link.as<relax::VarNode>();
            if (var != nullptr && uses.count(var) && uses.at(var) != 1) return matched;
          }
          const std::vector<tir::PrimExpr> qd = DimsOf(mt[q]), sd = DimsOf(mt[scores]), od = DimsOf(matched);
          const size_t n = qd.size();
          if (n < 3 || sd.size() != n || od.size() != n) return matched;
          // Keys and values as [..., KV, S, D] (head-major), unrepeated where the export repeats them
          // per query head. An export may transpose the keys from another layout in the same step
          // (x [B, S, H, D] by [0, 2, 3, 1]): they are then x permuted without the final swap.
          const bool k_repeated = mt[krep.rep].defined(), v_repeated = mt[vrep.rep].defined();
          if (k_repeated && (!SwapsLastTwoAxes(mt[kt], n) || !MatchHeadRepeat(mt, krep))) return matched;
          if (v_repeated && !MatchHeadRepeat(mt, vrep)) return matched;
          const relax::Expr k_src = mt[kin], v_src = mt[vin];
          std::vector<int64_t> k_axes = Iota(n);  // keys = permute_dims(k_src, k_axes)
          if (!k_repeated && !SwapsLastTwoAxes(mt[kt], n)) {
            auto attrs = relax::ParseAttrs<relax::PermuteDimsAttrs>(mt[kt].as<relax::CallNode>()->attrs);
            if (!attrs.ok() || attrs->axes.size() != n) return matched;
            k_axes = attrs->axes;
            std::swap(k_axes[n - 1], k_axes[n - 2]);
          }
          const std::vector<tir::PrimExpr> ksd = DimsOf(k_src), vd = DimsOf(v_src);
          if (ksd.size() != n || vd.size() != n) return matched;
          std::vector<tir::PrimExpr> kd;
          for (int64_t a : k_axes) kd.push_back(ksd[a]);
          // What the kernel reads: a sequence-major source where there is one.
          relax::Expr keys = k_src, values = v_src;
          bool k_seq_major = false, v_seq_major = false;
          if (k_axes == SequenceMajorSwap(n)) {
            k_seq_major = true;
          } else if (k_axes != Iota(n)) {
            keys = MakePermuteDims(k_src, k_axes);
          } else if (mt[kperm].defined() && PermutesBy(mt[kperm], SequenceMajorSwap(n))) {  // kin matched as kperm
            keys = mt[kx];
            k_seq_major = true;
          }
          if (mt[vperm].defined() && PermutesBy(mt[vperm], SequenceMajorSwap(n))) {
            values = mt[vx];
            v_seq_major = true;
          }
          const int64_t *heads = tir::AsConstInt(qd[n - 3]), *kv_heads = tir::AsConstInt(kd[n - 3]);
          if (heads == nullptr || kv_heads == nullptr || *kv_heads <= 0 || *heads % *kv_heads != 0) return matched;
          if (!SameDim(vd[n - 3], kd[n - 3]) || !SameDim(kd[n - 1], qd[n - 1]) || !SameDim(vd[n - 2], kd[n - 2]))
            return matched;
          for (size_t i = 0; i + 3 < n; ++i) {
            if (!SameDim(kd[i], qd[i]) || !SameDim(vd[i], qd[i])) return matched;
          }
          for (const relax::Expr& x : {mt[q], k_src, v_src}) {
            if (DtypeOf(x) != DataType::Float32()) return matched;
          }
          if (!SoftmaxOverLastAxis(mt[probs], n)) return matched;
          // params: support/attention_params.h.
          float factor = 1, fill_value = 0, divide = 0;
          if (mt[divided].defined() || mt[multiplied].defined()) {
            std::optional<float> value = ScalarConstant(mt[c]);
            if (!value) return matched;
            factor = *value;
            divide = mt[divided].defined() ? 1 : 0;
          }
          std::vector<relax::Expr> args = {mt[q], keys, values};
          std::optional<relax::Expr> mask;
          if (mt[fill_where_true].defined() || mt[keep_where_true].defined()) {
            std::optional<float> value = ScalarConstant(mt[fill]);
            if (!value || DtypeOf(mt[m]) != DataType::Bool() || !BroadcastsTo(DimsOf(mt[m]), sd)) return matched;
            fill_value = *value;
            mask = mt[fill_where_true].defined() ? mt[m] : relax::MakeCall(relax::GetOpOrDie("logical_not"), {mt[m]});
          } else if (mt[added].defined()) {
            if (DtypeOf(mt[m]) != DataType::Float32() || !BroadcastsTo(DimsOf(mt[m]), sd)) return matched;
            mask = mt[m];
          }
          TensorData params(DataType::Float32(), {kAttentionParamCount});
          float* pv = static_cast<float*>(params.mutable_data());
          pv[kAttentionFactor] = factor;
          pv[kAttentionFill] = fill_value;
          pv[kAttentionDivide] = divide;
          pv[kAttentionKeysSequenceMajor] = k_seq_major ? 1 : 0;
          pv[kAttentionValuesSequenceMajor] = v_seq_major ? 1 : 0;
          args.push_back(relax::MakeConstant(std::move(params)));
          if (mask) args.push_back(*mask);
          return CallDpsPacked("mlc.attention", std::move(args), matched);
        },
        bb);
  }

 private:
  static bool SoftmaxOverLastAxis(const relax::Expr& call, size_t n) {
    const auto* c = call.as<relax::CallNode>();
    if (c == nullptr) return false;
    auto attrs = relax::ParseAttrs<relax::SoftmaxAttrs>(c->attrs);
    return attrs.ok() && (attrs->axis == -1 || attrs->axis == static_cast<int64_t>(n) - 1);
  }
};

MLC_REGISTER_PASS(FuseAttentionPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
