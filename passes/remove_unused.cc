/*! \file remove_unused.cc
 *  \brief remove-unused: dead-code elimination.
 *
 *  In every graph function, drops bindings whose variable is never used, when the value is
 *  pure (calls of impure operators such as alloc_tensor stay), repeating until nothing changes
 *  (so chains die). Then drops functions no public function can reach: the entry points are
 *  functions with a "global_symbol"; reachability follows calls and call_tir callees.
 *  Cost: linear per round.
 */
#include "passes/remove_unused.h"

#include <set>

#include "ir/graph/expr_functor.h"
#include "ir/graph/op.h"
#include "passes/pass.h"

namespace mlc {
namespace passes {
namespace {

class UseCounter : public relax::ExprVisitor {
 public:
  std::set<const Object*> used;
  std::set<std::string> globals;

 protected:
  void VisitExpr_(const relax::VarNode* op) override { used.insert(op); }
  void VisitExpr_(const relax::GlobalVarNode* op) override { globals.insert(op->name); }
};

/*! \brief Whether an unused binding of `value` can go: a pure value that checks nothing. An
 *         R.match_cast stays: it is a run-time check, and it defines shape variables that other
 *         struct info may use. */
bool IsRemovable(const relax::Expr& value) {
  if (relax::MatchCastTarget(value) != nullptr) return false;
  if (const auto* call = value.as<relax::CallNode>()) return relax::IsPureCall(*call);
  return true;
}

class RemoveUnusedPass : public Pass {
 public:
  std::string name() const override { return "remove-unused"; }
  std::string description() const override {
    return "Dead-code elimination: drops pure bindings whose variables are never used, and functions that no entry "
           "point (a graph-level function with a global_symbol) reaches; PrimFuncs are kept only while called.";
  }
  absl::StatusOr<IRModule> Run(const IRModule& mod) override {
    std::map<std::string, BaseFunc> cleaned;
    for (const auto& [name, func] : mod.functions()) {
      relax::Function f = func.as_ref<relax::Function>();
      cleaned[name] = f.defined() ? BaseFunc(RemoveUnusedBindings(f)) : func;
    }
    // Reachability from public functions.
    std::set<std::string> reachable;
    std::vector<std::string> work;
    for (const auto& [name, func] : cleaned) {
      // Graph-level functions with a global_symbol are the entry points; a PrimFunc is only ever
      // called through call_tir, so it stays only while something calls it.
      if (func->kind() == NodeKind::kFunction && func->attrs.count("global_symbol")) {
        reachable.insert(name);
        work.push_back(name);
      }
    }
    while (!work.empty()) {
      std::string name = work.back();
      work.pop_back();
      const auto* f = cleaned[name].as<relax::FunctionNode>();
      if (f == nullptr) continue;
      UseCounter uses;
      uses.VisitFunction(f);
      for (const std::string& g : uses.globals) {
        if (cleaned.count(g) && reachable.insert(g).second) work.push_back(g);
      }
    }
    IRModule out = mod;
    for (const auto& [name, func] : cleaned) {
      if (!reachable.count(name))
        out.Remove(name);
      else if (!func.same_as(mod.Lookup(name)))
        out.Add(name, func);
    }
    return out;
  }
};

MLC_REGISTER_PASS(RemoveUnusedPass);

}  // namespace

relax::Function RemoveUnusedBindings(relax::Function func) {
  while (true) {
    UseCounter uses;
    uses.VisitFunction(func.get());
    bool changed = false;
    std::vector<relax::BindingBlock> blocks;
    for (const relax::BindingBlock& block : func->body->blocks) {
      std::vector<relax::VarBinding> kept;
      for (const relax::VarBinding& b : block->bindings) {
        if (!uses.used.count(b->var.get()) && IsRemovable(b->value)) {
          changed = true;
          continue;
        }
        kept.push_back(b);
      }
      if (kept.size() == block->bindings.size()) {
        blocks.push_back(block);
      } else if (!kept.empty()) {
        blocks.push_back(relax::BindingBlock(new relax::BindingBlockNode(kept, block->is_dataflow)));
      }
    }
    if (!changed) return func;
    func = relax::MakeFunction(func->params, relax::SeqExpr(new relax::SeqExprNode(blocks, func->body->body)),
                               func->ret_struct_info, func->attrs);
  }
}

}  // namespace passes
}  // namespace mlc
