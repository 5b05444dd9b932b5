/*! \file fold_constant.cc
 *  \brief fold-constant: evaluates at compile time every pure call whose inputs are all
 *         constants, replacing it by the constant result.
 *
 *  Evaluation is the one constant evaluator (ir/ops/constant_eval.h): an operator through its
 *  legalization, a call_tir through its PrimFunc, both by the loop-level interpreter. Calls with results above `max-elements` are left alone. Cost: the
 *  interpreted work, bounded by max-elements per call.
 */
#include "absl/strings/str_cat.h"
#include "ir/graph/expr_functor.h"
#include "ir/graph/op.h"
#include "ir/ops/constant_eval.h"
#include "passes/pass.h"

namespace mlc {
namespace passes {
namespace {

class ConstantFolder : public relax::ExprMutator {
 public:
  ConstantFolder(relax::BlockBuilder* bb, int64_t max_elements) : relax::ExprMutator(bb), max_elements_(max_elements) {}

 protected:
  relax::Expr VisitExpr_(const relax::CallNode* op, const relax::Expr& self) override {
    relax::Expr e = relax::ExprMutator::VisitExpr_(op, self);
    const auto* call = e.as<relax::CallNode>();
    if (call == nullptr) return e;
    absl::StatusOr<TensorData> value = relax::EvaluateConstantCall(*call, &builder_.module(), max_elements_);
    return value.ok() ? relax::MakeConstant(*value) : e;
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

 protected:
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* bb) override {
    return ConstantFolder(bb, *max_elements_).VisitFunction(func);
  }

 private:
  Option<int64_t> max_elements_{this, "max-elements", 1048576, "largest result (in elements) to fold"};
};

MLC_REGISTER_PASS(FoldConstantPass);

}  // namespace

}  // namespace passes
}  // namespace mlc
