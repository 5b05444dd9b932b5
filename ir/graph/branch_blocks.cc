/*! \file branch_blocks.cc
 *  \brief Splitting dataflow blocks around ifs (see branch_blocks.h).
 */
#include "ir/graph/branch_blocks.h"

#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ir/graph/expr_functor.h"

namespace mlc {
namespace relax {
namespace {

/*! \brief The variables an expression reads. */
class UsedVars : public ExprVisitor {
 public:
  std::unordered_set<const Object*> used;

 protected:
  void VisitExpr_(const VarNode* op) override { used.insert(op); }
};

struct Segment {
  std::vector<VarBinding> bindings;
  bool is_dataflow;
};

}  // namespace

absl::StatusOr<Function> MoveBranchesOutOfDataflow(const Function& func, const IRModule& mod) {
  std::vector<Segment> segments;
  bool split = false;
  for (const BindingBlock& block : func->body->blocks) {
    if (!block->is_dataflow) {
      segments.push_back({block->bindings, false});
      continue;
    }
    segments.push_back({{}, true});
    for (const VarBinding& b : block->bindings) {
      if (b->value->kind() != NodeKind::kIf) {
        if (!segments.back().is_dataflow) segments.push_back({{}, true});
        segments.back().bindings.push_back(b);
        continue;
      }
      split = true;
      segments.push_back({{b}, false});
    }
  }
  if (!split) return func;
  // Where each variable is defined, and which are read in another segment (or returned).
  std::unordered_map<const Object*, size_t> defined_in;
  for (size_t s = 0; s < segments.size(); ++s) {
    for (const VarBinding& b : segments[s].bindings) defined_in[b->var.get()] = s;
  }
  std::unordered_set<const Object*> escaping;
  for (size_t s = 0; s < segments.size(); ++s) {
    UsedVars reads;
    for (const VarBinding& b : segments[s].bindings) reads.VisitExpr(b->value);
    for (const Object* v : reads.used) {
      auto it = defined_in.find(v);
      if (it != defined_in.end() && it->second != s) escaping.insert(v);
    }
  }
  UsedVars returned;
  returned.VisitExpr(func->body->body);
  escaping.insert(returned.used.begin(), returned.used.end());
  // Escaping dataflow variables and the ifs' variables become ordinary variables.
  std::unordered_map<const Object*, Expr> renamed;
  std::vector<BindingBlock> blocks;
  for (const Segment& segment : segments) {
    if (segment.bindings.empty()) continue;
    std::vector<VarBinding> bindings;
    for (const VarBinding& b : segment.bindings) {
      Var var = b->var;
      if (var->kind() == NodeKind::kDataflowVar && (escaping.count(var.get()) || !segment.is_dataflow)) {
        var = MakeVar(var->name_hint, var->struct_info());
        renamed[b->var.get()] = var;
      }
      bindings.push_back(var.same_as(b->var) ? b : VarBinding(new VarBindingNode(var, b->value)));
    }
    blocks.push_back(BindingBlock(new BindingBlockNode(std::move(bindings), segment.is_dataflow)));
  }
  Function moved = MakeFunction(func->params, SeqExpr(new SeqExprNode(std::move(blocks), func->body->body)),
                                func->ret_struct_info, func->attrs);
  return renamed.empty() ? absl::StatusOr<Function>(moved) : SubstituteVars(moved, renamed, mod);
}

}  // namespace relax
}  // namespace mlc
