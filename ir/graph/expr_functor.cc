/*! \file expr_functor.cc
 *  \brief Graph-level visitor and mutator.
 */
#include "ir/graph/expr_functor.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "ir/graph/printer.h"

namespace mlc {
namespace relax {

// ---------------------------------------------------------------------------------------------
// Visitor.

void ExprVisitor::VisitExpr(const Expr& e) {
  switch (e->kind()) {
    case NodeKind::kVar:
    case NodeKind::kDataflowVar: return VisitExpr_(e.as<VarNode>());
    case NodeKind::kConstant: return VisitExpr_(e.as<ConstantNode>());
    case NodeKind::kTuple: return VisitExpr_(e.as<TupleNode>());
    case NodeKind::kTupleGetItem: return VisitExpr_(e.as<TupleGetItemNode>());
    case NodeKind::kShapeExpr: return VisitExpr_(e.as<ShapeExprNode>());
    case NodeKind::kCall: return VisitExpr_(e.as<CallNode>());
    case NodeKind::kGlobalVar: return VisitExpr_(e.as<GlobalVarNode>());
    case NodeKind::kExternFunc: return VisitExpr_(e.as<ExternFuncNode>());
    case NodeKind::kOp: return VisitExpr_(e.as<OpNode>());
    case NodeKind::kSeqExpr: return VisitExpr_(e.as<SeqExprNode>());
    case NodeKind::kIf:
      return VisitExpr_(e.as<IfNode>());
      MLC_CASES_NOT_EXPR
      return;
  }
}

void ExprVisitor::VisitExpr_(const TupleNode* op) {
  for (const Expr& f : op->fields) VisitExpr(f);
}
void ExprVisitor::VisitExpr_(const TupleGetItemNode* op) { VisitExpr(op->tuple); }
void ExprVisitor::VisitExpr_(const CallNode* op) {
  VisitExpr(op->op);
  for (const Expr& a : op->args) VisitExpr(a);
}
void ExprVisitor::VisitExpr_(const SeqExprNode* op) {
  for (const BindingBlock& b : op->blocks) VisitBindingBlock(b);
  VisitExpr(op->body);
}
void ExprVisitor::VisitExpr_(const IfNode* op) {
  VisitExpr(op->cond);
  VisitExpr(op->true_branch);
  VisitExpr(op->false_branch);
}
void ExprVisitor::VisitBinding(const VarBinding& binding) {
  VisitExpr(binding->value);
  VisitVarDef(binding->var);
}
void ExprVisitor::VisitBindingBlock(const BindingBlock& block) {
  for (const VarBinding& b : block->bindings) VisitBinding(b);
}
void ExprVisitor::VisitFunction(const FunctionNode* func) {
  for (const Var& p : func->params) VisitVarDef(p);
  VisitExpr(func->body);
}

// ---------------------------------------------------------------------------------------------
// Mutator.

void ExprMutator::Fail(absl::Status status) {
  if (status_.ok()) status_ = std::move(status);
}

Expr ExprMutator::Normalized(const Expr& e) {
  absl::StatusOr<Expr> n = builder_.Normalize(e);
  if (!n.ok()) {
    Fail(n.status());
    return e;
  }
  return *n;
}

Expr ExprMutator::VisitExpr(const Expr& e) {
  switch (e->kind()) {
    case NodeKind::kVar:
    case NodeKind::kDataflowVar: return VisitExpr_(e.as<VarNode>(), e);
    case NodeKind::kTuple: return VisitExpr_(e.as<TupleNode>(), e);
    case NodeKind::kTupleGetItem: return VisitExpr_(e.as<TupleGetItemNode>(), e);
    case NodeKind::kCall: return VisitExpr_(e.as<CallNode>(), e);
    case NodeKind::kIf: return VisitExpr_(e.as<IfNode>(), e);
    case NodeKind::kConstant:
    case NodeKind::kShapeExpr:
    case NodeKind::kGlobalVar:
    case NodeKind::kExternFunc:
    case NodeKind::kOp:
    case NodeKind::kSeqExpr:  // function bodies are rewritten binding by binding (VisitFunction)
      return VisitLeaf(e);
      MLC_CASES_NOT_EXPR
      return e;
  }
}

Expr ExprMutator::VisitExpr_(const VarNode* op, const Expr& self) {
  auto it = var_remap_.find(op);
  return it == var_remap_.end() ? self : it->second;
}

Expr ExprMutator::VisitExpr_(const TupleNode* op, const Expr& self) {
  bool changed = false;
  std::vector<Expr> fields;
  for (const Expr& f : op->fields) {
    fields.push_back(VisitExpr(f));
    changed = changed || !fields.back().same_as(f);
  }
  return changed ? Normalized(MakeTuple(fields)) : self;
}

Expr ExprMutator::VisitExpr_(const TupleGetItemNode* op, const Expr& self) {
  Expr tuple = VisitExpr(op->tuple);
  if (tuple.same_as(op->tuple)) return self;
  absl::StatusOr<Expr> item = MakeTupleGetItem(tuple, op->index);
  if (!item.ok()) {
    Fail(item.status());
    return self;
  }
  return *item;
}

Expr ExprMutator::VisitExpr_(const CallNode* op, const Expr& self) {
  Expr callee = VisitExpr(op->op);
  bool changed = !callee.same_as(op->op);
  std::vector<Expr> args;
  for (const Expr& a : op->args) {
    args.push_back(VisitExpr(a));
    changed = changed || !args.back().same_as(a);
  }
  if (!changed) return self;
  return Normalized(MakeCall(callee, args, op->attrs, op->sinfo_args));
}

Expr ExprMutator::VisitExpr_(const IfNode* op, const Expr& self) {
  Expr cond = VisitExpr(op->cond);
  // A branch is one expression: a rewrite that needs bindings for it would run them whether or
  // not the branch is taken. A branch of several bindings is a call of a function, which passes
  // rewrite as a function of its own.
  const size_t emitted = bindings_.size();
  Expr then_value = VisitExpr(op->true_branch);
  Expr else_value = VisitExpr(op->false_branch);
  if (bindings_.size() != emitted) {
    Fail(absl::InvalidArgumentError(
        absl::StrCat("a rewrite of an if branch (", PrintExpr(self),
                     ") needs bindings of its own; make the branch a call of a function holding them")));
    return self;
  }
  if (cond.same_as(op->cond) && then_value.same_as(op->true_branch) && else_value.same_as(op->false_branch))
    return self;
  return Expr(If(new IfNode(cond, then_value, else_value)));
}

Expr ExprMutator::VisitBindingValue_(const VarBindingNode* binding, const CallNode* call) {
  return VisitExpr(binding->value);
}

std::string ExprMutator::FreshName(const std::string& hint) {
  std::string name = hint;
  for (int i = 1; name_use_.count(name); ++i) name = absl::StrCat(hint, i);
  name_use_[name] = 1;
  return name;
}

Expr ExprMutator::Flatten(const Expr& e) {
  const auto* call = e.as<CallNode>();
  if (call == nullptr) return e;
  bool changed = false;
  std::vector<Expr> args;
  for (const Expr& a : call->args) {
    if (a->kind() == NodeKind::kCall) {
      args.push_back(Emit(a));
      changed = true;
    } else if (const auto* tuple = a.as<TupleNode>()) {
      // The argument tuple of call_tir / call_dps_packed: its fields are bound first too.
      std::vector<Expr> fields;
      bool nested = false;
      for (const Expr& f : tuple->fields) {
        nested |= f->kind() == NodeKind::kCall;
        fields.push_back(f->kind() == NodeKind::kCall ? Expr(Emit(f)) : f);
      }
      args.push_back(nested ? Expr(MakeTuple(std::move(fields))) : a);
      changed |= nested;
    } else {
      args.push_back(a);
    }
  }
  return changed ? Expr(MakeCall(call->op, args, call->attrs, call->sinfo_args)) : e;
}

Var ExprMutator::Emit(const Expr& value, const std::string& name_hint) {
  Expr v = Normalized(Flatten(value));
  std::string name = FreshName(name_hint.empty() ? "lv" : name_hint);
  Var var = in_dataflow_ ? MakeDataflowVar(name, v->struct_info()) : MakeVar(name, v->struct_info());
  bindings_.push_back(VarBinding(new VarBindingNode(var, v)));
  bound_values_[var.get()] = v;
  return var;
}

bool ExprMutator::BoundInCurrentBlock(const Var& var) const {
  return std::any_of(bindings_.begin(), bindings_.end(), [&](const VarBinding& b) { return b->var.same_as(var); });
}

void ExprMutator::VisitBinding_(const VarBindingNode* binding) {
  Expr value = binding->value->kind() == NodeKind::kCall ? VisitBindingValue_(binding, binding->value.as<CallNode>())
                                                         : VisitExpr(binding->value);
  Var var = binding->var;
  if (!value.same_as(binding->value)) {
    value = Normalized(Flatten(value));
    // Keep the variable when its struct info still describes the value; else a new one.
    if (!IsBaseOf(var->struct_info(), value->struct_info()) || !IsBaseOf(value->struct_info(), var->struct_info())) {
      var = var->kind() == NodeKind::kDataflowVar ? MakeDataflowVar(var->name_hint, value->struct_info())
                                                  : MakeVar(var->name_hint, value->struct_info());
      var_remap_[binding->var.get()] = var;
    }
  }
  bindings_.push_back(value.same_as(binding->value) && var.same_as(binding->var)
                          ? VarBinding(binding)
                          : VarBinding(new VarBindingNode(var, value)));
  bound_values_[binding->var.get()] = value;
  bound_values_[var.get()] = value;
}

std::optional<Expr> ExprMutator::LookupBinding(const Var& var) const {
  auto it = bound_values_.find(var.get());
  if (it == bound_values_.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<Function> ExprMutator::VisitFunction(const Function& func) {
  status_ = absl::OkStatus();
  bound_values_.clear();
  name_use_.clear();
  // Names in use, so emitted bindings get fresh ones.
  for (const Var& p : func->params) name_use_[p->name_hint] = 1;
  for (const BindingBlock& b : func->body->blocks) {
    for (const VarBinding& vb : b->bindings) name_use_[vb->var->name_hint] = 1;
  }
  bool changed = false;
  std::vector<BindingBlock> blocks;
  for (const BindingBlock& block : func->body->blocks) {
    in_dataflow_ = block->is_dataflow;
    bindings_.clear();
    for (const VarBinding& b : block->bindings) VisitBinding_(b.get());
    bool same = bindings_.size() == block->bindings.size();
    for (size_t i = 0; same && i < bindings_.size(); ++i) same = bindings_[i].same_as(block->bindings[i]);
    if (same) {
      blocks.push_back(block);
    } else {
      changed = true;
      if (!bindings_.empty()) blocks.push_back(BindingBlock(new BindingBlockNode(bindings_, block->is_dataflow)));
    }
  }
  in_dataflow_ = false;
  bindings_.clear();
  Expr body = VisitExpr(func->body->body);
  if (!status_.ok()) return status_;
  if (!changed && body.same_as(func->body->body)) return func;
  return MakeFunction(func->params, SeqExpr(new SeqExprNode(blocks, body)), func->ret_struct_info, func->attrs);
}

namespace {
class VarSubstituter : public ExprMutator {
 public:
  VarSubstituter(const std::unordered_map<const Object*, Expr>& map, const IRModule& mod) : ExprMutator(mod) {
    var_remap_ = map;
  }
};
}  // namespace

absl::StatusOr<Function> SubstituteVars(const Function& func, const std::unordered_map<const Object*, Expr>& map,
                                        const IRModule& mod) {
  return VarSubstituter(map, mod).VisitFunction(func);
}

}  // namespace relax
}  // namespace mlc
