/*! \file canonicalize_bindings.cc
 *  \brief canonicalize-bindings: removes trivial `y = x` bindings.
 *
 *  Uses of y become uses of x. When y must stay visible after its dataflow block (a Var bound
 *  to a DataflowVar, the `gv = lv1` of R.output) and x is bound in the same block, x's binding
 *  is given to y instead: `lv1 = f(...); gv = lv1` becomes `gv = f(...)`. Cost: linear.
 */
#include <unordered_map>

#include "ir/graph/expr_functor.h"
#include "passes/pass.h"

namespace mlc {
namespace passes {
namespace {

class CanonicalizeBindingsPass : public FunctionPass {
 public:
  std::string name() const override { return "canonicalize-bindings"; }
  std::string description() const override {
    return "Removes trivial var-to-var bindings (y = x): uses of y use x; an output `gv = lv` takes over lv's "
           "binding.";
  }

 protected:
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* bb) override {
    // Pass 1: decide, per trivial binding, which variable survives.
    std::unordered_map<const Object*, relax::Expr> replace;  // var -> its replacement
    std::unordered_map<const Object*, relax::Var> rename;    // dataflow var -> output var taking its binding
    for (const relax::BindingBlock& block : func->body->blocks) {
      std::unordered_map<const Object*, bool> bound_here;
      std::unordered_map<const Object*, int> uses_in_block;
      for (const relax::VarBinding& b : block->bindings) bound_here[b->var.get()] = true;
      for (const relax::VarBinding& b : block->bindings) {
        const auto* src = b->value.as<relax::VarNode>();
        if (src == nullptr) continue;
        relax::Var from = b->var;
        relax::Var to(src);
        bool from_is_output = from->kind() == NodeKind::kVar && block->is_dataflow;
        bool to_is_local = to->kind() == NodeKind::kDataflowVar;
        if (from_is_output && to_is_local) {
          if (bound_here.count(to.get()) && !rename.count(to.get())) rename[to.get()] = from;
          continue;
        }
        replace[from.get()] = relax::Expr(to);
      }
    }
    if (replace.empty() && rename.empty()) return func;
    // Pass 2: rebuild.
    std::unordered_map<const Object*, relax::Expr> subst = replace;
    for (const auto& [local, out] : rename) subst[local] = relax::Expr(out);
    auto resolve = [&](relax::Expr e) {
      for (int i = 0; i < 64; ++i) {
        auto it = subst.find(e.get());
        if (it == subst.end()) break;
        e = it->second;
      }
      return e;
    };
    std::unordered_map<const Object*, relax::Expr> final_subst;
    for (const auto& [var, e] : subst) final_subst[var] = resolve(e);
    std::vector<relax::BindingBlock> blocks;
    for (const relax::BindingBlock& block : func->body->blocks) {
      std::vector<relax::VarBinding> kept;
      for (const relax::VarBinding& b : block->bindings) {
        if (replace.count(b->var.get())) continue;
        const auto* src = b->value.as<relax::VarNode>();
        if (src != nullptr && rename.count(src) && rename.at(src).same_as(b->var)) continue;  // gv = lv, folded
        auto r = rename.find(b->var.get());
        relax::Var var = r != rename.end() ? r->second : b->var;
        kept.push_back(relax::VarBinding(new relax::VarBindingNode(var, b->value)));
      }
      if (!kept.empty()) blocks.push_back(relax::BindingBlock(new relax::BindingBlockNode(kept, block->is_dataflow)));
    }
    relax::Function rebuilt =
        relax::MakeFunction(func->params, relax::SeqExpr(new relax::SeqExprNode(blocks, func->body->body)),
                            func->ret_struct_info, func->attrs);
    return relax::SubstituteVars(rebuilt, final_subst, bb->module());
  }
};

MLC_REGISTER_PASS(CanonicalizeBindingsPass);

}  // namespace

}  // namespace passes
}  // namespace mlc
