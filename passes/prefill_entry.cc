/*! \file prefill_entry.cc
 *  \brief prefill-entry: a decoder's prompt entry point, @prefill, that computes the logits of
 *         the last position only.
 *
 *  A decoder's main maps ids [1, seq] to logits [1, seq, vocab] (and, with a cache, the grown
 *  caches). Generation reads only the last row of the prompt's logits, yet main computes the
 *  final norm and the vocabulary projection for every position: for a 250M-parameter model
 *  with a 32000-word vocabulary that head is an eighth of a 128-token prompt's work. @prefill
 *  is main with its logits replaced by logits[:, -1:]; the slice is moved up through the
 *  operators that work row by row (the head's matmul by a matrix, the norm's elementwise
 *  operators and its reductions over the last axis, layer norm) as long as the values they read
 *  are needed for the last row only: it stops at the residual stream entering the last block
 *  (which that block's attention also reads whole), so the final norm, the head and the last
 *  block's output projection and feed-forward network run on one row, and nothing is computed
 *  twice. The caches main returns are computed as before.
 *
 *  Both functions share the weights (the same constants; the executable stores equal
 *  constants once). The generator (vm/generation.h) runs the prompt through @prefill when the
 *  executable has one, and every generated token through main. Applies when main's first
 *  parameter is int64 ids [1, seq] and its logits (the result, or the result's first field)
 *  are [1, seq, vocab] over the same symbolic seq; otherwise, and when @prefill exists, the
 *  module is returned as it is. Run before quantize-weights, whose library calls it does not
 *  look through (the pipelines and `--quantize` order them so).
 */
#include <limits>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "ir/graph/expr_functor.h"
#include "ir/graph/op.h"
#include "ir/graph/shape_util.h"
#include "ir/ops/op_attrs.h"
#include "ir/tir/prim_expr_ops.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

constexpr const char* kPrefill = "prefill";

/*! \brief Operators whose every output row (along the sequence axis) depends only on the same
 *  row of the operands that have the axis: the slice moves through them. */
const std::set<std::string>& ElementwiseOps() {
  static const auto* ops = new std::set<std::string>{
      "add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "ewise_fma", "sqrt", "exp",
      "log", "negative", "sigmoid",  "tanh",   "erf",   "nn.relu", "astype",  "cos",       "sin",  "abs"};
  return *ops;
}

/*! \brief How an operand of a row-wise call of rank `rank` (the sequence on axis 1) meets the
 *  slice: sliced (it has the axis), kept (it broadcasts along it), or neither (nullopt). */
std::optional<bool> Role(const relax::Expr& operand, size_t rank, const tir::PrimExpr& seq) {
  const auto* t = operand->struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || !t->HasKnownShape()) return std::nullopt;
  const std::vector<tir::PrimExpr> dims = t->Dims();
  if (dims.size() + 2 <= rank) return false;  // right-aligned, it stops short of axis 1
  if (dims.size() != rank) return std::nullopt;
  if (tir::IsConstInt(dims[1], 1)) return false;
  if (relax::DimsEqual(dims[1], seq)) return true;
  return std::nullopt;
}

/*! \brief For a call whose result (of rank `rank`) has the sequence on axis 1 and is computed
 *  row by row: which operands its last row needs the last row of (the others it needs whole,
 *  as they broadcast); nullopt when the call mixes rows or is not known to work row by row. */
std::optional<std::vector<bool>> RowWiseOperands(const relax::CallNode* call, size_t rank, const tir::PrimExpr& seq) {
  const auto* op = call->op.as<relax::OpNode>();
  if (op == nullptr) return std::nullopt;
  const std::string& name = op->name();
  std::vector<bool> slice(call->args.size(), false);
  if (ElementwiseOps().count(name)) {
    for (size_t i = 0; i < call->args.size(); ++i) {
      std::optional<bool> role = Role(call->args[i], rank, seq);
      if (!role) return std::nullopt;
      slice[i] = *role;
    }
    return slice;
  }
  if (rank < 3 || !Role(call->args[0], rank, seq).value_or(false)) return std::nullopt;
  slice[0] = true;
  if (name == "matmul" || name == "nn.dense" || name == "linear") {
    // x [.., seq, k] times a matrix (and a bias): row by row.
    for (size_t i = 1; i < call->args.size(); ++i) {
      const auto* t = call->args[i]->struct_info().as<relax::TensorStructInfoNode>();
      if (t == nullptr || t->ndim < 1 || t->ndim > 2) return std::nullopt;
    }
    return slice;
  }
  if (name == "nn.layer_norm") return slice;
  if (name == "mean" || name == "sum" || name == "max" || name == "min") {
    absl::StatusOr<relax::ReduceAttrs> attrs = relax::ParseAttrs<relax::ReduceAttrs>(call->attrs);
    if (!attrs.ok() || attrs->axis.empty()) return std::nullopt;
    for (int64_t a : attrs->axis) {
      if ((a < 0 ? a + static_cast<int64_t>(rank) : a) <= 1) return std::nullopt;  // reduces the batch or the sequence
    }
    return slice;
  }
  return std::nullopt;
}

size_t RankOf(const relax::VarNode* v) {
  const auto* t = v->struct_info().as<relax::TensorStructInfoNode>();
  return t != nullptr && t->HasKnownShape() ? t->Dims().size() : 0;
}

/*! \brief The variables of main whose every use needs only their last row: the logits, then,
 *  going up, the operands a row-wise call slices when all of their uses are such slices. Their
 *  full values are then dead in @prefill, so moving the slice up through them saves work; a
 *  value used whole as well (the residual stream that the next block's attention reads) is
 *  sliced where it is, never recomputed for one row. */
std::set<const relax::VarNode*> NeededForTheLastRowOnly(const relax::Function& main, const relax::VarNode* logits,
                                                        const tir::PrimExpr& seq) {
  std::vector<const relax::VarBindingNode*> bindings;
  for (const relax::BindingBlock& block : main->body->blocks) {
    for (const relax::VarBinding& b : block->bindings) bindings.push_back(b.get());
  }
  std::map<const relax::VarNode*, int> uses = CountVarUses(main), sliced_uses;
  std::set<const relax::VarNode*> last_only;
  for (auto it = bindings.rbegin(); it != bindings.rend(); ++it) {
    const relax::VarNode* v = (*it)->var.get();
    if (v != logits && (uses[v] == 0 || sliced_uses[v] != uses[v])) continue;
    const auto* call = (*it)->value.as<relax::CallNode>();
    std::optional<std::vector<bool>> operands = call ? RowWiseOperands(call, RankOf(v), seq) : std::nullopt;
    if (!operands) continue;
    last_only.insert(v);
    for (size_t i = 0; i < call->args.size(); ++i) {
      if ((*operands)[i] && call->args[i].as<relax::VarNode>()) ++sliced_uses[call->args[i].as<relax::VarNode>()];
    }
  }
  return last_only;
}

/*! \brief Builds @prefill from main: the binding of the logits becomes its last row, computed
 *  from the last rows of the values only it needs. */
class LastRowRewriter : public relax::ExprMutator {
 public:
  LastRowRewriter(const relax::VarNode* logits, const tir::PrimExpr& seq, std::set<const relax::VarNode*> last_only)
      : logits_(logits), seq_(seq), last_only_(std::move(last_only)) {}

 protected:
  void VisitBinding_(const relax::VarBindingNode* binding) override {
    values_[binding->var.get()] = binding->value;
    relax::ExprMutator::VisitBinding_(binding);
  }

  relax::Expr VisitBindingValue_(const relax::VarBindingNode* binding, const relax::CallNode* call) override {
    if (binding->var.get() != logits_) return relax::ExprMutator::VisitBindingValue_(binding, call);
    if (last_only_.count(logits_)) return SlicedCall(binding->var.get(), call);
    // Not row-wise itself: computed whole, then sliced.
    return TailSlice(Emit(relax::ExprMutator::VisitBindingValue_(binding, call), binding->var->name_hint + "_all"));
  }

 private:
  /*! \brief The call computing the last row of `var` = `call` (var in last_only_). */
  relax::Expr SlicedCall(const relax::VarNode* var, const relax::CallNode* call) {
    std::vector<bool> slice = *RowWiseOperands(call, RankOf(var), seq_);
    std::vector<relax::Expr> args;
    for (size_t i = 0; i < call->args.size(); ++i) {
      const auto* v = call->args[i].as<relax::VarNode>();
      if (!slice[i]) {
        args.push_back(VisitExpr(call->args[i]));
      } else {
        args.push_back(v != nullptr ? relax::Expr(LastRow(v)) : TailSlice(VisitExpr(call->args[i])));
      }
    }
    return relax::MakeCall(call->op, args, call->attrs, call->sinfo_args);
  }

  /*! \brief The last row of a variable of main: computed from last rows while only it is needed,
   *  else sliced from the whole value. */
  relax::Var LastRow(const relax::VarNode* var) {
    auto memo = last_rows_.find(var);
    if (memo != last_rows_.end()) return memo->second;
    auto bound = values_.find(var);
    const auto* call = bound == values_.end() ? nullptr : bound->second.as<relax::CallNode>();
    relax::Expr value =
        call != nullptr && last_only_.count(var) ? SlicedCall(var, call) : TailSlice(VisitExpr(relax::Var(var)));
    relax::Var row = Emit(value, var->name_hint + "_last");
    last_rows_[var] = row;
    return row;
  }

  static relax::Expr TailSlice(const relax::Expr& x) {
    relax::StridedSliceAttrs attrs{{1}, {-1}, {std::numeric_limits<int64_t>::max()}, {1}};
    return relax::MakeCall(relax::GetOpOrDie("strided_slice"), {x}, relax::ToAttrs(attrs));
  }

  const relax::VarNode* logits_;
  tir::PrimExpr seq_;
  std::set<const relax::VarNode*> last_only_;
  std::map<const relax::VarNode*, relax::Expr> values_;
  std::map<const relax::VarNode*, relax::Var> last_rows_;
};

/*! \brief main's logits variable and its symbolic sequence length, when main is a decoder:
 *  ids int64 [1, seq] first, logits [1, seq, vocab] (the result or its first field). */
std::optional<std::pair<const relax::VarNode*, tir::PrimExpr>> DecoderLogits(const relax::Function& main) {
  if (main->params.empty()) return std::nullopt;
  const auto* ids = main->params[0]->struct_info().as<relax::TensorStructInfoNode>();
  if (ids == nullptr || ids->dtype != DataType::Int64() || !ids->HasKnownShape()) return std::nullopt;
  const std::vector<tir::PrimExpr> id_dims = ids->Dims();
  if (id_dims.size() != 2 || !tir::IsConstInt(id_dims[0], 1) || tir::AsConstInt(id_dims[1]) != nullptr)
    return std::nullopt;
  const auto* result = main->body->body.as<relax::VarNode>();
  if (result == nullptr) return std::nullopt;
  std::map<const relax::VarNode*, relax::Expr> values;
  for (const relax::BindingBlock& block : main->body->blocks) {
    for (const relax::VarBinding& b : block->bindings) values[b->var.get()] = b->value;
  }
  const relax::VarNode* logits = result;
  if (const auto* tuple = values.count(result) ? values[result].as<relax::TupleNode>() : nullptr) {
    logits = tuple->fields.empty() ? nullptr : tuple->fields[0].as<relax::VarNode>();
  }
  // Through aliases (the output variable bound to the last dataflow variable) to the call.
  while (logits != nullptr && values.count(logits) && values[logits].as<relax::VarNode>() != nullptr) {
    logits = values[logits].as<relax::VarNode>();
  }
  if (logits == nullptr) return std::nullopt;
  const auto* t = logits->struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || !t->HasKnownShape()) return std::nullopt;
  const std::vector<tir::PrimExpr> dims = t->Dims();
  if (dims.size() != 3 || !tir::IsConstInt(dims[0], 1) || !relax::DimsEqual(dims[1], id_dims[1]) ||
      tir::AsConstInt(dims[2]) == nullptr) {
    return std::nullopt;
  }
  return std::make_pair(logits, id_dims[1]);
}

class PrefillEntryPass : public Pass {
 public:
  std::string name() const override { return "prefill-entry"; }
  std::string description() const override {
    return "A decoder's prompt entry point: adds @prefill, main computing the logits of the last position only (the "
           "slice "
           "moved up through the row-wise operators whose values only the last row needs: the head, the final norm, "
           "the "
           "last block's feed-forward network), the caches as main. Applies when main takes int64 ids [1, seq] first "
           "and "
           "returns logits [1, seq, vocab] (or a tuple of them first); the generator runs prompts through @prefill. "
           "Run "
           "before quantize-weights.";
  }

  absl::StatusOr<IRModule> Run(const IRModule& mod) override {
    relax::Function main = mod.LookupFunction("main");
    if (!main.defined() || mod.Contains(kPrefill)) return mod;
    std::optional<std::pair<const relax::VarNode*, tir::PrimExpr>> logits = DecoderLogits(main);
    if (!logits) return mod;
    LastRowRewriter rewriter(logits->first, logits->second,
                             NeededForTheLastRowOnly(main, logits->first, logits->second));
    absl::StatusOr<relax::Function> prefill = rewriter.VisitFunction(main);
    if (!prefill.ok()) return prefill.status();
    Attrs attrs = (*prefill)->attrs;
    attrs["global_symbol"] = std::string(kPrefill);
    IRModule out = mod;
    out.Add(kPrefill, relax::MakeFunction((*prefill)->params, (*prefill)->body, nullptr, attrs));
    return out;
  }
};

MLC_REGISTER_PASS(PrefillEntryPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
