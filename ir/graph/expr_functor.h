/*! \file expr_functor.h
 *  \brief Visitor and mutator over the graph level.
 *
 *  ExprVisitor walks expressions in post-order (a call's arguments before the call) and
 *  bindings in program order, with a hook per node kind and per binding.
 *
 *  ExprMutator rebuilds a function binding by binding, in the TVM Relax style:
 *   - VisitBinding_(binding, call) is the per-binding hook for calls; the default visits the
 *     value and re-emits the binding (reusing the variable when nothing changed).
 *   - LookupBinding(var) returns the value a variable was bound to (after rewriting), so a
 *     rewrite can look through its operands (`add(lv0, y)` where `lv0 = multiply(x, y)`).
 *   - Emit(value) inserts a new binding before the current one, so a rewrite may add bindings.
 *   - builder_ is a BlockBuilder over the module being rewritten: normalization (struct info
 *     of new calls), AddFunc (new sub-functions), UpdateFunc.
 *  A mutator that changes nothing returns the same Function (`same_as`).
 */
#ifndef MLC_IR_GRAPH_EXPR_FUNCTOR_H_
#define MLC_IR_GRAPH_EXPR_FUNCTOR_H_

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph/block_builder.h"
#include "ir/graph/function.h"

namespace mlc {
namespace relax {

class ExprVisitor {
 public:
  virtual ~ExprVisitor() = default;
  virtual void VisitExpr(const Expr& e);
  virtual void VisitBinding(const VarBinding& binding);
  virtual void VisitBindingBlock(const BindingBlock& block);
  virtual void VisitFunction(const FunctionNode* func);

 protected:
  virtual void VisitExpr_(const VarNode* op) {}
  virtual void VisitExpr_(const ConstantNode* op) {}
  virtual void VisitExpr_(const TupleNode* op);
  virtual void VisitExpr_(const TupleGetItemNode* op);
  virtual void VisitExpr_(const ShapeExprNode* op) {}
  virtual void VisitExpr_(const CallNode* op);
  virtual void VisitExpr_(const GlobalVarNode* op) {}
  virtual void VisitExpr_(const ExternFuncNode* op) {}
  virtual void VisitExpr_(const OpNode* op) {}
  virtual void VisitExpr_(const SeqExprNode* op);
  virtual void VisitExpr_(const IfNode* op);
  /*! \brief Called for every variable definition (parameters and bound variables). */
  virtual void VisitVarDef(const Var& var) {}
};

class ExprMutator {
 public:
  /*! \brief A mutator with a builder of its own over `mod`. */
  explicit ExprMutator(IRModule mod = IRModule())
      : own_builder_(std::make_unique<BlockBuilder>(std::move(mod))), builder_(*own_builder_) {}
  /*! \brief A mutator that emits through the caller's `builder`: functions it adds (PrimFuncs,
   *         fused sub-functions) land in the caller's module. */
  explicit ExprMutator(BlockBuilder* builder) : builder_(*builder) {}
  ExprMutator(const ExprMutator&) = delete;
  virtual ~ExprMutator() = default;

  virtual Expr VisitExpr(const Expr& e);
  /*! \brief Rewrites a function; the first error of any hook is returned. */
  absl::StatusOr<Function> VisitFunction(const Function& func);

 protected:
  virtual Expr VisitExpr_(const VarNode* op, const Expr& self);
  virtual Expr VisitExpr_(const TupleNode* op, const Expr& self);
  virtual Expr VisitExpr_(const TupleGetItemNode* op, const Expr& self);
  virtual Expr VisitExpr_(const CallNode* op, const Expr& self);
  /*! \brief The condition and each branch; a branch whose rewrite emits bindings is an error. */
  virtual Expr VisitExpr_(const IfNode* op, const Expr& self);
  /*! \brief Leaves (constants, shapes, global vars, extern funcs, ops) are kept. */
  virtual Expr VisitLeaf(const Expr& self) { return self; }

  /*! \brief The hook for `var = value`: by default rewrites `value` and emits the binding. */
  virtual void VisitBinding_(const VarBindingNode* binding);
  /*! \brief The hook for `var = call(...)`; the default delegates to VisitExpr(call). */
  virtual Expr VisitBindingValue_(const VarBindingNode* binding, const CallNode* call);

  /*! \brief The rewritten value bound to `var`, if it is bound in the function being rewritten. */
  std::optional<Expr> LookupBinding(const Var& var) const;
  /*! \brief Adds a binding (normalized) before the one being rewritten; returns its variable. */
  Var Emit(const Expr& value, const std::string& name_hint = "");
  /*! \brief Whether `var` is bound in the block being rewritten (so still in scope: a dataflow
   *  variable is not, after its block). */
  bool BoundInCurrentBlock(const Var& var) const;
  /*! \brief Reports an error; VisitFunction returns the first one. */
  void Fail(absl::Status status);
  bool in_dataflow() const { return in_dataflow_; }

 private:
  std::unique_ptr<BlockBuilder> own_builder_;  // set when the mutator has a builder of its own

 protected:
  BlockBuilder& builder_;
  std::unordered_map<const Object*, Expr> var_remap_;

 private:
  Expr Normalized(const Expr& e);
  /*! \brief Normal form: call arguments that are calls are bound first (Emit). */
  Expr Flatten(const Expr& e);
  std::string FreshName(const std::string& hint);

  std::vector<VarBinding> bindings_;
  bool in_dataflow_ = false;
  std::unordered_map<const Object*, Expr> bound_values_;
  std::unordered_map<std::string, int> name_use_;
  absl::Status status_;
};

/*! \brief Replaces variables by expressions throughout a function body (used by bind-params).
 *         `mod` holds the functions the body calls: a call whose arguments change is inferred again. */
absl::StatusOr<Function> SubstituteVars(const Function& func, const std::unordered_map<const Object*, Expr>& map,
                                        const IRModule& mod);

}  // namespace relax
}  // namespace mlc

#endif  // MLC_IR_GRAPH_EXPR_FUNCTOR_H_
