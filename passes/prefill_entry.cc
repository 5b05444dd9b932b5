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
 *  operators and its reductions over the last axis, layer norm) until it meets one that mixes
 *  positions (the residual stream after the last block), so the head runs on one row. The
 *  caches main returns are computed as before.
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

namespace mlc {
namespace passes {
namespace {

constexpr const char* kPrefill = "prefill";

/*! \brief Operators whose every output row (along the sequence axis) depends only on the same
 *  row of the operands that have the axis: the slice moves through them. */
const std::set<std::string>& ElementwiseOps() {
  static const auto* ops = new std::set<std::string>{
      "add", "subtract", "multiply", "divide", "power", "maximum", "minimum", "ewise_fma", "sqrt", "exp", "log",
      "negative", "sigmoid", "tanh", "erf", "nn.relu", "astype", "cos", "sin", "abs"};
  return *ops;
}

/*! \brief Builds @prefill from main: rewrites the binding of the logits to its last row. */
class LastRowRewriter : public relax::ExprMutator {
 public:
  LastRowRewriter(const relax::VarNode* logits, const tir::PrimExpr& seq) : logits_(logits), seq_(seq) {}

 protected:
  void VisitBinding_(const relax::VarBindingNode* binding) override {
    values_[binding->var.get()] = binding->value;
    relax::ExprMutator::VisitBinding_(binding);
  }

  relax::Expr VisitBindingValue_(const relax::VarBindingNode* binding, const relax::CallNode* call) override {
    if (binding->var.get() != logits_) return relax::ExprMutator::VisitBindingValue_(binding, call);
    return SlicedValue(binding->var, call);
  }

 private:
  /*! \brief How an operand of a row-wise call of rank `rank` (the sequence on axis 1) meets the
   *  slice: sliced (it has the axis), kept (it broadcasts along it), or neither (nullopt). */
  std::optional<bool> Role(const relax::Expr& operand, size_t rank) const {
    const auto* t = operand->struct_info().as<relax::TensorStructInfoNode>();
    if (t == nullptr || !t->HasKnownShape()) return std::nullopt;
    const std::vector<tir::PrimExpr> dims = t->Dims();
    if (dims.size() + 2 <= rank) return false;  // right-aligned, it stops short of axis 1
    if (dims.size() != rank) return std::nullopt;
    if (tir::IsConstInt(dims[1], 1)) return false;
    if (relax::DimsEqual(dims[1], seq_)) return true;
    return std::nullopt;
  }

  /*! \brief The call that computes the last row of `call`'s result, or an undefined expression
   *  when it is not row-wise. */
  relax::Expr SlicedCall(const relax::CallNode* call, size_t rank) {
    const auto* op = call->op.as<relax::OpNode>();
    if (op == nullptr) return relax::Expr();
    const std::string& name = op->name();
    std::vector<bool> slice(call->args.size(), false);
    if (ElementwiseOps().count(name)) {
      for (size_t i = 0; i < call->args.size(); ++i) {
        std::optional<bool> role = Role(call->args[i], rank);
        if (!role) return relax::Expr();
        slice[i] = *role;
      }
    } else if (name == "matmul" || name == "nn.dense" || name == "linear") {
      // x [.., seq, k] times a matrix (and a bias): row by row.
      std::optional<bool> x = Role(call->args[0], rank);
      for (size_t i = 1; i < call->args.size(); ++i) {
        const auto* t = call->args[i]->struct_info().as<relax::TensorStructInfoNode>();
        if (t == nullptr || t->ndim < 1 || t->ndim > 2) return relax::Expr();
      }
      if (!x || !*x || rank < 3) return relax::Expr();
      slice[0] = true;
    } else if (name == "nn.layer_norm") {
      if (!Role(call->args[0], rank).value_or(false) || rank < 3) return relax::Expr();
      slice[0] = true;
    } else if (name == "mean" || name == "sum" || name == "max" || name == "min") {
      absl::StatusOr<relax::ReduceAttrs> attrs = relax::ParseAttrs<relax::ReduceAttrs>(call->attrs);
      if (!attrs.ok() || attrs->axis.empty() || !Role(call->args[0], rank).value_or(false)) return relax::Expr();
      for (int64_t a : attrs->axis) {
        if ((a < 0 ? a + static_cast<int64_t>(rank) : a) <= 1) return relax::Expr();  // reduces the batch or the sequence
      }
      slice[0] = true;
    } else {
      return relax::Expr();
    }
    std::vector<relax::Expr> args;
    for (size_t i = 0; i < call->args.size(); ++i) {
      const auto* v = call->args[i].as<relax::VarNode>();
      if (slice[i]) {
        args.push_back(v != nullptr ? relax::Expr(LastRow(relax::Var(v))) : TailSlice(VisitExpr(call->args[i])));
      } else {
        args.push_back(VisitExpr(call->args[i]));
      }
    }
    return relax::MakeCall(call->op, args, call->attrs, call->sinfo_args);
  }

  relax::Expr SlicedValue(const relax::Var& var, const relax::CallNode* call) {
    const auto* t = var->struct_info().as<relax::TensorStructInfoNode>();
    relax::Expr sliced = t != nullptr && t->HasKnownShape() ? SlicedCall(call, t->Dims().size()) : relax::Expr();
    return sliced.defined() ? sliced : TailSlice(VisitExpr(var));
  }

  /*! \brief The last row of a variable of main, moved up to where rows are mixed. */
  relax::Var LastRow(const relax::Var& var) {
    auto memo = last_rows_.find(var.get());
    if (memo != last_rows_.end()) return memo->second;
    auto bound = values_.find(var.get());
    const auto* call = bound == values_.end() ? nullptr : bound->second.as<relax::CallNode>();
    relax::Expr value = call != nullptr ? SlicedValue(var, call) : TailSlice(VisitExpr(var));
    relax::Var row = Emit(value, var->name_hint + "_last");
    last_rows_[var.get()] = row;
    return row;
  }

  static relax::Expr TailSlice(const relax::Expr& x) {
    relax::StridedSliceAttrs attrs{{1}, {-1}, {std::numeric_limits<int64_t>::max()}, {1}};
    return relax::MakeCall(relax::GetOpOrDie("strided_slice"), {x}, relax::ToAttrs(attrs));
  }

  const relax::VarNode* logits_;
  tir::PrimExpr seq_;
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
  if (id_dims.size() != 2 || !tir::IsConstInt(id_dims[0], 1) || tir::AsConstInt(id_dims[1]) != nullptr) return std::nullopt;
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
    return "A decoder's prompt entry point: adds @prefill, main computing the logits of the last position only (the slice "
           "moved up through the head's matmul and the final norm to the residual stream), the caches as main. Applies "
           "when main takes int64 ids [1, seq] first and returns logits [1, seq, vocab] (or a tuple of them first); the "
           "generator runs prompts through @prefill. Run before quantize-weights.";
  }

  absl::StatusOr<IRModule> Run(const IRModule& mod) override {
    relax::Function main = mod.LookupFunction("main");
    if (!main.defined() || mod.Contains(kPrefill)) return mod;
    std::optional<std::pair<const relax::VarNode*, tir::PrimExpr>> logits = DecoderLogits(main);
    if (!logits) return mod;
    LastRowRewriter rewriter(logits->first, logits->second);
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
