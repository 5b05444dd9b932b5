/*! \file fold_constant.cc
 *  \brief fold-constant: evaluates at compile time every pure call whose inputs are all
 *         constants, replacing it by the constant result.
 *
 *  A high-level operator is evaluated through its legalization (the same tensor expression
 *  codegen would compile), a call_tir through its PrimFunc, both by the loop-level interpreter
 *  (tir_interpreter.h). Calls with results above `max-elements` are left alone. Cost: the
 *  interpreted work, bounded by max-elements per call.
 */
#include "absl/strings/str_cat.h"
#include "ir/expr_functor.h"
#include "ir/op.h"
#include "passes/legalize.h"
#include "passes/pass.h"
#include "passes/tir_interpreter.h"

namespace mlc {
namespace passes {
namespace {

class ConstantFolder : public relax::ExprMutator {
 public:
  ConstantFolder(const IRModule& mod, int64_t max_elements) : relax::ExprMutator(mod), max_elements_(max_elements) {}

 protected:
  relax::Expr VisitExpr_(const relax::CallNode* op, const relax::Expr& self) override {
    relax::Expr e = relax::ExprMutator::VisitExpr_(op, self);
    const auto* call = e.as<relax::CallNode>();
    const auto* callee = call ? call->op.as<relax::OpNode>() : nullptr;
    if (callee == nullptr || !callee->info().pure) return e;
    const auto* out = call->struct_info().as<relax::TensorStructInfoNode>();
    if (out == nullptr || !out->shape || NumElements(*out->shape) > max_elements_) return e;
    std::vector<relax::Expr> inputs;
    tir::PrimFunc prim;
    if (callee->name() == "call_tir") {
      inputs = call->args[1].as<relax::TupleNode>()->fields;
      prim = builder_.module().LookupPrimFunc(call->args[0].as<relax::GlobalVarNode>()->name);
    } else {
      inputs = call->args;
      const FLegalize* rule = relax::GetOpAttr<FLegalize>(callee->info(), "FLegalize");
      if (rule == nullptr) return e;
      for (const relax::Expr& a : inputs) {
        if (a->kind() != NodeKind::kConstant) return e;
      }
      relax::BlockBuilder scratch;
      absl::StatusOr<relax::Expr> lowered = (*rule)(&scratch, *call);
      if (!lowered.ok()) return e;
      const auto* ct = lowered->as<relax::CallNode>();
      if (ct == nullptr) return e;
      prim = scratch.module().LookupPrimFunc(ct->args[0].as<relax::GlobalVarNode>()->name);
    }
    if (!prim.defined()) return e;
    std::vector<TensorData> tensors;
    for (const relax::Expr& a : inputs) {
      if (a->kind() != NodeKind::kConstant) return e;
      tensors.push_back(a.as<relax::ConstantNode>()->data);
    }
    tensors.emplace_back(out->dtype, *out->shape);
    std::vector<TensorData*> ptrs;
    for (TensorData& t : tensors) ptrs.push_back(&t);
    if (!InterpretPrimFunc(prim, ptrs).ok()) return e;
    return relax::MakeConstant(tensors.back());
  }

 protected:
  /*! \brief A variable bound to a constant is replaced by it in later uses, so chains fold. */
  void VisitBinding_(const relax::VarBindingNode* binding) override {
    relax::ExprMutator::VisitBinding_(binding);
    std::optional<relax::Expr> value = LookupBinding(binding->var);
    if (value && (*value)->kind() == NodeKind::kConstant) var_remap_[binding->var.get()] = *value;
  }

 private:
  int64_t max_elements_;
};

class FoldConstantPass : public FunctionPass {
 public:
  std::string name() const override { return "fold-constant"; }
  std::string description() const override {
    return "Evaluates pure calls whose inputs are all constants (operators through their legalization, call_tir "
           "through its PrimFunc) with the loop-level interpreter, replacing them by the result.";
  }
  std::vector<PassOption> options() const override {
    return {{"max-elements", "int", "1048576", "largest result (in elements) to fold"}};
  }

 protected:
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, const IRModule& mod) override {
    RegisterCoreLegalizations();
    return ConstantFolder(mod, GetInt("max-elements")).VisitFunction(func);
  }
};

}  // namespace

std::unique_ptr<Pass> CreateFoldConstantPass() { return std::make_unique<FoldConstantPass>(); }

}  // namespace passes
}  // namespace mlc
