/*! \file legalize.cc
 *  \brief The legalize pass.
 */
#include "passes/legalize.h"

#include "absl/strings/str_cat.h"
#include "ir/graph/expr_functor.h"
#include "ir/graph/op.h"
#include "passes/pass.h"

namespace mlc {
namespace passes {

absl::Status RegisterLegalization(const std::string& op, relax::FLegalize rule) {
  relax::OpInfo* info = relax::OpRegistry::Global().FindMutable(op);
  if (info == nullptr) return absl::NotFoundError(absl::StrCat("no operator \"", op, "\" to legalize"));
  info->set_legalize(std::move(rule));
  return absl::OkStatus();
}

namespace {

class Legalizer : public relax::ExprMutator {
 public:
  using relax::ExprMutator::ExprMutator;

 protected:
  relax::Expr VisitExpr_(const relax::CallNode* op, const relax::Expr& self) override {
    relax::Expr e = relax::ExprMutator::VisitExpr_(op, self);
    const auto* call = e.as<relax::CallNode>();
    if (call == nullptr) return e;
    const auto* callee = call->op.as<relax::OpNode>();
    if (callee == nullptr) return e;
    const relax::FLegalize& rule = callee->info().legalize;
    if (!rule) return e;
    const size_t mark = builder_.added_functions().size();
    absl::StatusOr<relax::Expr> lowered = rule(&builder_, *call);
    if (!lowered.ok()) {
      Fail(absl::Status(lowered.status().code(),
                        absl::StrCat("legalizing R.", callee->name(), ": ", lowered.status().message())));
      return e;
    }
    RecordSourceOp(mark, callee->name());
    return *lowered;
  }

 private:
  /*! \brief Marks the PrimFuncs the rule added since `mark` (not those it found equal ones of)
   *         with the operator they implement. */
  void RecordSourceOp(size_t mark, const std::string& op) {
    const std::vector<std::string>& added = builder_.added_functions();
    for (size_t i = mark; i < added.size(); ++i) {
      const std::string& name = added[i];
      tir::PrimFunc prim = builder_.module().LookupPrimFunc(name);
      if (!prim.defined() || prim->attrs.count(kSourceOpsAttr) != 0) continue;
      Attrs attrs = prim->attrs;
      attrs[kSourceOpsAttr] = op;
      (void)builder_.UpdateFunc(name, tir::PrimFunc(new tir::PrimFuncNode(prim->params, prim->body, attrs)));
    }
  }
};

class LegalizePass : public FunctionPass {
 public:
  std::string name() const override { return "legalize"; }
  std::string description() const override {
    return "Lowers high-level operator calls to call_tir of PrimFuncs built from the operator library's tensor "
           "expressions (the seeds' LowerToTensorIR), through the legalization rule of each operator's registration. "
           "Operators without a rule are left alone.";
  }

 protected:
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* bb) override {
    return Legalizer(bb).VisitFunction(func);
  }
};

MLC_REGISTER_PASS(LegalizePass);

}  // namespace
}  // namespace passes
}  // namespace mlc
