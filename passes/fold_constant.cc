/*! \file fold_constant.cc
 *  \brief fold-constant: evaluates at compile time every pure call whose inputs are all
 *         constants, replacing it by the constant result.
 *
 *  Pure bindings nothing uses are dropped first (remove-unused's RemoveUnusedBindings), not folded.
 *  Evaluation is the one constant evaluator (ir/ops/constant_eval.h): an operator through its
 *  legalization, a call_tir through its PrimFunc, both by the loop-level interpreter. Calls whose
 *  result is larger than both `max-elements` and every input (a broadcast) are left alone; a weight
 *  transposed or cast folds whatever its size. Cost: the interpreted work, bounded by max-elements
 *  per call.
 */
#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/graph/expr_functor.h"
#include "ir/graph/op.h"
#include "ir/ops/constant_eval.h"
#include "passes/pass.h"
#include "passes/remove_unused.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief Folded calls by what they read, across the functions of a module: the same weight
 *  transposed in two functions (a decoder's main and @prefill) becomes one constant. */
class FoldedCalls {
 public:
  relax::Expr Find(const relax::CallNode& call) const {
    auto it = entries_.find(Key(call));
    if (it == entries_.end()) return relax::Expr();
    for (const Entry& e : it->second) {
      const auto* c = e.call.as<relax::CallNode>();
      bool same = c->attrs == call.attrs && c->args.size() == call.args.size() &&
                  c->sinfo_args.size() == call.sinfo_args.size();
      for (size_t i = 0; same && i < call.args.size(); ++i) same = c->args[i].same_as(call.args[i]);
      for (size_t i = 0; same && i < call.sinfo_args.size(); ++i) same = c->sinfo_args[i].same_as(call.sinfo_args[i]);
      if (same) return e.value;
    }
    return relax::Expr();
  }
  void Add(const relax::Expr& call, const relax::Expr& value) {
    entries_[Key(*call.as<relax::CallNode>())].push_back({call, value});
  }

 private:
  struct Entry {
    relax::Expr call;  // kept: its operator and operands stay alive, so their addresses stay theirs
    relax::Expr value;
  };
  static std::pair<const Object*, const Object*> Key(const relax::CallNode& call) {
    return {call.op.get(), call.args.empty() ? nullptr : call.args[0].get()};
  }
  std::map<std::pair<const Object*, const Object*>, std::vector<Entry>> entries_;
};

class ConstantFolder : public relax::ExprMutator {
 public:
  ConstantFolder(relax::BlockBuilder* bb, int64_t max_elements, FoldedCalls* folded)
      : relax::ExprMutator(bb), max_elements_(max_elements), folded_(folded) {}

 protected:
  relax::Expr VisitExpr_(const relax::CallNode* op, const relax::Expr& self) override {
    relax::Expr e = relax::ExprMutator::VisitExpr_(op, self);
    const auto* call = e.as<relax::CallNode>();
    if (call == nullptr) return e;
    if (relax::Expr known = folded_->Find(*call); known.defined()) return known;
    absl::StatusOr<TensorData> value = relax::EvaluateConstantCall(*call, &builder_.module(), max_elements_);
    if (!value.ok()) return e;
    relax::Expr folded = relax::MakeConstant(*value);
    folded_->Add(e, folded);
    return folded;
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
  FoldedCalls* folded_;
};

class FoldConstantPass : public FunctionPass {
 public:
  std::string name() const override { return "fold-constant"; }
  std::string description() const override {
    return "Evaluates pure calls whose inputs are all constants (operators through their legalization, call_tir "
           "through its PrimFunc) with the loop-level interpreter, replacing them by the result; pure bindings nothing "
           "uses are dropped first, not folded.";
  }

 protected:
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* bb) override {
    // Dead bindings go first: qdq-to-integer leaves every weight's dequantize unused, and
    // folding those made an int8 ResNet-50's weights float again for nothing (6 s).
    return ConstantFolder(bb, *max_elements_, &folded_).VisitFunction(RemoveUnusedBindings(func));
  }

 private:
  FoldedCalls folded_;
  Option<int64_t> max_elements_{this, "max-elements", 1048576,
                                "largest result (in elements) to fold when it is larger than every input"};
};

MLC_REGISTER_PASS(FoldConstantPass);

}  // namespace

}  // namespace passes
}  // namespace mlc
