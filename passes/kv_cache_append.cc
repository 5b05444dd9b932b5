/*! \file kv_cache_append.cc
 *  \brief kv-cache-append: key/value caches that grow in place.
 *
 *  A decoder exported with past_key_values takes each layer's cache as a parameter
 *  past [1, KV, past, D] and returns present = concat([past, new], axis=2). Compiled as it is,
 *  every step copies the whole cache (past + seq rows) to append seq of them: the work of a
 *  step grows with the context. This pass keeps such a cache sequence-major,
 *  past' [1, past, KV, D], where the rows of a prefix are a prefix of the bytes, and appends with
 *  R.cache_append, which the VM runs in place when the cache's storage has room after it
 *  (vm/ndarray.h AppendRows; the generator allocates caches with room for the whole
 *  generation). Readers of the grown cache see permute_dims(present', [0, 2, 1, 3]), which
 *  fuse-attention folds into mlc.attention's layout flags: no copy of the cache is left.
 *
 *  Applies to a parameter used only by one concat with a tensor of new rows, along a symbolic
 *  axis, whose result the function returns. The function's signature changes: that parameter and
 *  the returned cache become sequence-major (the axis moved in front of the others that are not
 *  1). A cache already sequence-major keeps its layout and only gets R.cache_append.
 */
#include <map>
#include <set>
#include <vector>

#include "ir/graph/expr_functor.h"
#include "ir/graph/op.h"
#include "ir/ops/op_attrs.h"
#include "ir/tir/prim_expr_ops.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief How one cache is rewritten. */
struct CachePlan {
  relax::Var param;               // the new, sequence-major parameter
  std::vector<int64_t> to_seq;    // permutation from the exported layout to the new one (empty: none)
  std::vector<int64_t> from_seq;  // its inverse
  int64_t axis = 0;               // the cached-length axis in the new layout
};

class CacheRewriter : public relax::ExprMutator {
 public:
  CacheRewriter(relax::BlockBuilder* bb, const std::map<const relax::VarNode*, CachePlan>& plans,
                const relax::TupleNode* returned)
      : relax::ExprMutator(bb), plans_(plans), returned_(returned) {}

 protected:
  relax::Expr VisitBindingValue_(const relax::VarBindingNode* binding, const relax::CallNode* call) override {
    auto it = plans_.find(binding->var.get());
    if (it == plans_.end()) return relax::ExprMutator::VisitBindingValue_(binding, call);
    const CachePlan& plan = it->second;
    relax::Expr rows = VisitExpr(call->args[1]);
    if (!plan.to_seq.empty()) rows = Emit(MakePermuteDims(rows, plan.to_seq));
    Attrs attrs;
    attrs["axis"] = plan.axis;
    relax::Var grown = Emit(relax::MakeCall(relax::GetOpOrDie("cache_append"), {plan.param, rows}, attrs), "cache");
    grown_[binding->var.get()] = grown;
    // Other readers see the exported layout (fuse-attention reads through this view).
    return plan.to_seq.empty() ? relax::Expr(grown) : MakePermuteDims(grown, plan.from_seq);
  }

  relax::Expr VisitExpr_(const relax::TupleNode* op, const relax::Expr& self) override {
    if (op != returned_) return relax::ExprMutator::VisitExpr_(op, self);
    // The returned tuple carries the grown caches themselves, in the new layout.
    std::vector<relax::Expr> fields;
    for (const relax::Expr& f : op->fields) {
      auto it = grown_.find(f.as<relax::VarNode>());
      fields.push_back(it != grown_.end() ? relax::Expr(it->second) : VisitExpr(f));
    }
    return relax::MakeTuple(std::move(fields));
  }

 private:
  const std::map<const relax::VarNode*, CachePlan>& plans_;
  const relax::TupleNode* returned_;
  std::map<const relax::VarNode*, relax::Var> grown_;
};

class KvCacheAppendPass : public FunctionPass {
 public:
  std::string name() const override { return "kv-cache-append"; }
  std::string description() const override {
    return "Key/value caches that grow in place: a parameter used only by concat([past, new], axis) along a symbolic "
           "axis, "
           "whose result the function returns, becomes sequence-major (that axis in front of the others that are not "
           "1, "
           "[1, KV, past, D] -> [1, past, KV, D]) and is grown by R.cache_append, which the VM runs in place when the "
           "cache's "
           "storage has room; readers of the grown cache see it permuted back (fuse-attention reads it as it is). "
           "Changes the "
           "signature: those parameters and results are sequence-major. Run before fuse-attention.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& f, relax::BlockBuilder* bb) override {
    // The tuple the function returns: a cache qualifies only when it is returned.
    const auto* result = f->body->body.as<relax::VarNode>();
    std::set<const relax::VarNode*> returned;
    const relax::TupleNode* result_tuple = nullptr;
    std::map<const relax::VarNode*, int> uses = CountVarUses(f);
    std::vector<const relax::VarBindingNode*> bindings;
    for (const relax::BindingBlock& block : f->body->blocks) {
      for (const relax::VarBinding& b : block->bindings) {
        bindings.push_back(b.get());
        if (b->var.get() == result) result_tuple = b->value.as<relax::TupleNode>();
      }
    }
    if (result_tuple == nullptr) return f;
    for (const relax::Expr& field : result_tuple->fields) returned.insert(field.as<relax::VarNode>());
    std::set<const relax::VarNode*> params;
    for (const relax::Var& p : f->params) params.insert(p.get());

    std::map<const relax::VarNode*, CachePlan> plans;        // by the concat's variable
    std::map<const relax::VarNode*, relax::Var> new_params;  // old parameter -> new
    for (const relax::VarBindingNode* b : bindings) {
      const auto* call = b->value.as<relax::CallNode>();
      const auto* op = call ? call->op.as<relax::OpNode>() : nullptr;
      if (op == nullptr || op->name() != "concat" || call->args.size() != 2 || !returned.count(b->var.get())) continue;
      const auto* past = call->args[0].as<relax::VarNode>();
      if (past == nullptr || !params.count(past) || uses[past] != 1 || new_params.count(past)) continue;
      const auto* t = past->struct_info().as<relax::TensorStructInfoNode>();
      auto attrs = relax::ParseAttrs<relax::AxisAttrs>(call->attrs);
      if (t == nullptr || !t->HasKnownShape() || !attrs.ok()) continue;
      const std::vector<tir::PrimExpr> dims = t->Dims();
      const int64_t rank = static_cast<int64_t>(dims.size());
      const int64_t axis = attrs->axis < 0 ? attrs->axis + rank : attrs->axis;
      if (axis < 0 || axis >= rank || tir::AsConstInt(dims[axis]) != nullptr)
        continue;  // the cached length is symbolic
      // New order: the leading 1s, the cached axis, then the rest in order.
      int64_t lead = 0;
      while (lead < axis && tir::IsConstInt(dims[lead], 1)) ++lead;
      CachePlan plan;
      plan.axis = lead;
      if (lead != axis) {
        for (int64_t d = 0; d < lead; ++d) plan.to_seq.push_back(d);
        plan.to_seq.push_back(axis);
        for (int64_t d = lead; d < rank; ++d) {
          if (d != axis) plan.to_seq.push_back(d);
        }
        plan.from_seq.assign(rank, 0);
        for (int64_t d = 0; d < rank; ++d) plan.from_seq[plan.to_seq[d]] = d;
      }
      std::vector<tir::PrimExpr> seq_dims;
      for (int64_t d = 0; d < rank; ++d) seq_dims.push_back(dims[plan.to_seq.empty() ? d : plan.to_seq[d]]);
      plan.param = relax::MakeVar(past->name_hint, relax::TensorSInfoOfDims(seq_dims, t->dtype));
      new_params[past] = plan.param;
      plans[b->var.get()] = plan;
    }
    if (plans.empty()) return f;
    CacheRewriter rewriter(bb, plans, result_tuple);
    absl::StatusOr<relax::Function> rewritten = rewriter.VisitFunction(f);
    if (!rewritten.ok()) return rewritten.status();
    std::vector<relax::Var> signature;
    for (const relax::Var& p : f->params) {
      auto it = new_params.find(p.get());
      signature.push_back(it != new_params.end() ? it->second : p);
    }
    return relax::MakeFunction(signature, (*rewritten)->body, nullptr, (*rewritten)->attrs);
  }
};

MLC_REGISTER_PASS(KvCacheAppendPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
