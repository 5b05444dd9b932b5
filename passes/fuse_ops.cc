/*! \file fuse_ops.cc
 *  \brief fuse-ops: groups operator calls into Primitive sub-functions by their pattern kind.
 *
 *  Calls of loop programs (`call_tir` of a PrimFunc: after legalize, or written by a user) take
 *  part with the pattern kind read off the PrimFunc (prim_func_pattern.h), so the pass works
 *  before legalize, on operators, and after it, on their loop programs (TVM's order: legalize,
 *  annotate patterns, fuse-ops, fuse-tir).
 *
 *  Within each dataflow block, bindings are visited in order and a call joins the group of
 *  one of its producers when
 *   - the producer's result is used by this call only (a computation with several users is
 *     never duplicated: it stays the output of its own group);
 *   - the kinds compose: an elementwise / broadcast / injective call fuses after a group whose
 *     anchor is elementwise, broadcast, injective or out-elementwise-fusable (dense, matmul: the
 *     epilogue); a reduction fuses after an elementwise / broadcast / injective group and then
 *     closes it; out-elementwise-fusable and opaque calls start their own group;
 *   - the group stays small (max-depth calls) and merging keeps the graph acyclic: no other
 *     input of the call may depend on the group.
 *  The call's other producers whose groups are elementwise chains used only by it join as well
 *  (sigmoid(a) * tanh(b): one group, or a convolution's epilogue with its int8 rescale factor;
 *  inside a diamond region too, such as a GRU step's gates and the recurrent product's slices);
 *  such side chains are emitted before the group's head, so a convolution's or matrix
 *  product's loops are followed directly by the epilogue that its schedule moves under them.
 *  Groups of two or more calls become `fused_<op>_<op>...` functions with the attribute
 *  Primitive = 1 whose parameters are the group's inputs (constants included, so fuse-tir can
 *  turn them into buffers), and the group is replaced by one call. Cost: O(n * depth).
 */
#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "ir/graph/expr_functor.h"
#include "ir/graph/op.h"
#include "ir/tir/shape_expr.h"
#include "passes/pass.h"
#include "passes/prim_func_pattern.h"

namespace mlc {
namespace passes {
namespace {

using relax::OpPattern;

struct Group {
  std::vector<int> members;  // binding indices, in order
  int head = -1;             // the binding that started it
  OpPattern anchor = OpPattern::kOpaque;
  bool closed = false;  // a reduction ended it
};

class UseCollector : public relax::ExprVisitor {
 public:
  std::map<const Object*, int> uses;

 protected:
  void VisitExpr_(const relax::VarNode* op) override { ++uses[op]; }
};

bool EpilogueFusable(OpPattern p) {
  return p == OpPattern::kElemWise || p == OpPattern::kBroadcast || p == OpPattern::kInjective;
}

class FuseOpsPass : public FunctionPass {
 public:
  std::string name() const override { return "fuse-ops"; }
  std::string description() const override {
    return "Groups operator calls into Primitive sub-functions driven by each operator's pattern kind: elementwise, "
           "broadcast and injective calls fuse into their producer's group (dense/matmul take them as an epilogue), "
           "reductions end a group; a result with several users is never duplicated, but when all its users meet again "
           "through fusible operators (a diamond: relu(x) * y + x) the whole region joins its group; elementwise "
           "chains that meet at one call are one group (sigmoid(a) * tanh(b)), also as side chains of a "
           "product's epilogue; the graph stays acyclic.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* builder) override {
    UseCollector uses;
    uses.VisitFunction(func.get());
    int64_t max_depth = *max_depth_;
    bool changed = false;
    std::vector<relax::BindingBlock> blocks;
    for (const relax::BindingBlock& block : func->body->blocks) {
      if (!block->is_dataflow) {
        blocks.push_back(block);
        continue;
      }
      const auto& bindings = block->bindings;
      int n = static_cast<int>(bindings.size());
      std::map<const Object*, int> index_of;  // var -> binding index
      for (int i = 0; i < n; ++i) index_of[bindings[i]->var.get()] = i;
      std::vector<OpPattern> kind(n, OpPattern::kOpaque);
      std::vector<std::vector<int>> producers(n);
      for (int i = 0; i < n; ++i) {
        const auto* call = bindings[i]->value.as<relax::CallNode>();
        if (call == nullptr) continue;
        kind[i] = PatternOf(*call, builder->module());
        if (NamesNewShapeVars(*call, bindings[i]->var)) kind[i] = OpPattern::kOpaque;
        for (const relax::Expr& a : Operands(*call)) {
          auto it = index_of.find(a.get());
          if (it != index_of.end()) producers[i].push_back(it->second);
        }
      }
      std::vector<std::vector<int>> users(n);  // binding indices using each binding's result
      for (int i = 0; i < n; ++i) {
        for (int p : producers[i]) users[p].push_back(i);
      }
      std::vector<int> group_of(n, -1);
      std::vector<Group> groups;
      std::map<int, int> diamond_group;  // binding -> the group a diamond region assigned it to
      for (int i = 0; i < n; ++i) {
        int joined = -1;
        if (auto d = diamond_group.find(i); d != diamond_group.end()) joined = d->second;
        if (joined < 0 && kind[i] != OpPattern::kOpaque && kind[i] != OpPattern::kOutEWiseFusable &&
            kind[i] != OpPattern::kTuple) {
          // A convolution's or matrix product's group first: an elementwise call fuses as its
          // epilogue, and its other operands' chains then join as side chains, where joining
          // an elementwise producer first would leave the product a kernel of its own.
          std::vector<int> candidates = producers[i];
          std::stable_partition(candidates.begin(), candidates.end(),
                                [&](int p) { return groups[group_of[p]].anchor == OpPattern::kOutEWiseFusable; });
          for (int p : candidates) {
            Group& g = groups[group_of[p]];
            if (g.closed || static_cast<int64_t>(g.members.size()) >= max_depth) continue;
            if (uses.uses[bindings[p]->var.get()] != 1) continue;  // never duplicate a shared result
            if (g.members.back() != p) continue;                   // only extend from the group's output
            bool ok = kind[i] == OpPattern::kCommReduce
                          ? EpilogueFusable(g.anchor) || g.anchor == OpPattern::kCommReduce
                          : EpilogueFusable(g.anchor) || g.anchor == OpPattern::kOutEWiseFusable;
            if (kind[i] == OpPattern::kCommReduce && g.anchor == OpPattern::kCommReduce) ok = false;
            if (!ok) continue;
            // Acyclic: no other producer of i may depend on a member of the group.
            bool cycle = false;
            for (int q : producers[i]) {
              if (group_of[q] != group_of[p]) cycle = cycle || DependsOnGroup(q, g, group_of[p], producers, group_of);
            }
            if (cycle) continue;
            joined = group_of[p];
            break;
          }
        }
        if (joined >= 0 && EpilogueFusable(kind[i])) {
          // The call's other producers whose chains end here join too: sigmoid(a) * tanh(b)
          // is one kernel, not two (TVM's post-dominator rule fuses such a tree whole). Also
          // inside a diamond region: a recurrent cell's gates are one (the step's input, used
          // by every gate), and the slices of the recurrent product they add are side chains.
          for (int q : producers[i]) {
            if (CanMergeSibling(q, joined, i, max_depth, groups, group_of, producers, bindings, uses, diamond_group)) {
              MergeGroups(group_of[q], joined, &groups, &group_of);
            }
          }
        }
        if (joined >= 0 && diamond_group.count(i)) {
          groups[joined].members.push_back(i);
          group_of[i] = joined;
          continue;
        }
        if (joined >= 0) {
          Group& g = groups[joined];
          g.members.push_back(i);
          if (kind[i] == OpPattern::kCommReduce) {
            g.anchor = OpPattern::kCommReduce;
            g.closed = true;
          }
          group_of[i] = joined;
        } else {
          Group g;
          g.members = {i};
          g.head = i;
          g.anchor = kind[i];
          g.closed = kind[i] == OpPattern::kOpaque || kind[i] == OpPattern::kCommReduce;
          groups.push_back(g);
          group_of[i] = static_cast<int>(groups.size()) - 1;
        }
        // A result several operators use, all of which meet again (a diamond: relu(x) * y + x):
        // the whole region up to where the paths meet joins the group, as TVM's post-dominator
        // analysis allows.
        Group& g = groups[group_of[i]];
        if (!g.closed && g.members.back() == i && users[i].size() > 1 && EpilogueHost(g.anchor)) {
          std::vector<int> region = DiamondRegion(i, kind, producers, users, bindings, uses,
                                                  max_depth - static_cast<int64_t>(g.members.size()));
          // A binding already in an earlier diamond stays there: splitting that region would
          // leave a value of one group read by another.
          const bool claimed =
              std::any_of(region.begin(), region.end(), [&](int r) { return diamond_group.count(r) != 0; });
          if (!claimed) {
            for (int r : region) diamond_group[r] = group_of[i];
          }
        }
      }
      // Emit: each group of >= 2 calls becomes one call of a new sub-function.
      std::vector<relax::VarBinding> out;
      std::map<int, bool> emitted;
      for (int i = 0; i < n; ++i) {
        const Group& g = groups[group_of[i]];
        if (g.members.size() < 2) {
          out.push_back(bindings[i]);
          continue;
        }
        if (g.members.back() != i) continue;  // emitted at the group's last member
        if (!BindsItsShapeVars(g, bindings)) {
          // Emitted unfused, in order: only the group used its members' results.
          for (int m : g.members) out.push_back(bindings[m]);
          continue;
        }
        absl::StatusOr<relax::VarBinding> call = EmitGroup(g, bindings, builder);
        if (!call.ok()) return call.status();
        out.push_back(*call);
        changed = true;
      }
      blocks.push_back(relax::BindingBlock(new relax::BindingBlockNode(out, true)));
    }
    if (!changed) return func;
    return relax::MakeFunction(func->params, relax::SeqExpr(new relax::SeqExprNode(blocks, func->body->body)),
                               func->ret_struct_info, func->attrs);
  }

  /*! \brief Whether binding `from` depends, transitively, on a member of group `g` (number
   *  `id`): a backward search over producers that stops below the group's first member, since a
   *  binding depends only on earlier ones. (A transitive closure of every binding would be
   *  quadratic in the block's length.) */
  static bool DependsOnGroup(int from, const Group& g, int id, const std::vector<std::vector<int>>& producers,
                             const std::vector<int>& group_of) {
    const int lowest = g.members.front();
    std::vector<int> stack = {from};
    std::set<int> seen = {from};
    while (!stack.empty()) {
      int v = stack.back();
      stack.pop_back();
      for (int p : producers[v]) {
        if (p < lowest || !seen.insert(p).second) continue;
        if (group_of[p] == id) return true;
        stack.push_back(p);
      }
    }
    return false;
  }

  /*! \brief Whether the group ending at producer `q` of call `i` can join group `into`, which
   *  `i` joins: a chain of elementwise, broadcast or injective calls whose result only `i`
   *  reads, small enough together, and no path between the two groups outside them (nor from
   *  either to another producer of `i`), so the merged group stays acyclic. */
  static bool CanMergeSibling(int q, int into, int i, int64_t max_depth, const std::vector<Group>& groups,
                              const std::vector<int>& group_of, const std::vector<std::vector<int>>& producers,
                              const std::vector<relax::VarBinding>& bindings, UseCollector& uses,
                              const std::map<int, int>& diamond_group) {
    const int from = group_of[q];
    if (from == into) return false;
    const Group& b = groups[from];
    const Group& a = groups[into];
    if (!EpilogueHost(a.anchor)) return false;  // (the group `i` joined is never closed)
    if (b.closed || !EpilogueFusable(b.anchor) || b.members.back() != q) return false;
    if (uses.uses[bindings[q]->var.get()] != 1) return false;
    if (static_cast<int64_t>(a.members.size() + b.members.size()) + 1 > max_depth) return false;
    for (auto d = diamond_group.upper_bound(i); d != diamond_group.end(); ++d) {
      if (d->second == from) return false;  // a pending diamond region keeps its group
    }
    if (DependsOnGroup(q, a, into, producers, group_of) ||
        DependsOnGroup(a.members.back(), b, from, producers, group_of))
      return false;
    for (int r : producers[i]) {
      if (group_of[r] != into && group_of[r] != from && DependsOnGroup(r, b, from, producers, group_of)) return false;
    }
    return true;
  }

  /*! \brief Moves group `from`'s members into group `into`, in binding order. */
  static void MergeGroups(int from, int into, std::vector<Group>* groups, std::vector<int>* group_of) {
    Group& a = (*groups)[into];
    Group& b = (*groups)[from];
    for (int m : b.members) (*group_of)[m] = into;
    a.members.insert(a.members.end(), b.members.begin(), b.members.end());
    std::sort(a.members.begin(), a.members.end());
    b.members.clear();
  }

  static bool EpilogueHost(OpPattern anchor) {
    return EpilogueFusable(anchor) || anchor == OpPattern::kOutEWiseFusable;
  }

  /*! \brief The bindings from `p` to where every use of `p` meets again, all elementwise,
   *  broadcast or injective and used only inside the region (but the last), at most `room` of
   *  them; empty when the uses of `p` do not meet under those conditions. */
  static std::vector<int> DiamondRegion(int p, const std::vector<OpPattern>& kind,
                                        const std::vector<std::vector<int>>& producers,
                                        const std::vector<std::vector<int>>& users,
                                        const std::vector<relax::VarBinding>& bindings, UseCollector& uses,
                                        int64_t room) {
    std::set<int> region;
    std::map<int, int> open;  // value -> uses not yet inside the region
    open[p] = static_cast<int>(users[p].size());
    // The bindings that read p or the region, in order: users come after their producers, so
    // taking the lowest pending one visits them as a scan from p would, without the scan.
    std::set<int> pending(users[p].begin(), users[p].end());
    while (!pending.empty()) {
      const int j = *pending.begin();
      pending.erase(pending.begin());
      if (!EpilogueFusable(kind[j]) || static_cast<int64_t>(region.size()) + 1 > room) return {};
      for (int q : producers[j]) {
        if (q == p || region.count(q)) --open[q];
      }
      region.insert(j);
      pending.insert(users[j].begin(), users[j].end());
      open[j] = static_cast<int>(users[j].size());
      bool met = true;  // every value of the region but j fully used inside it
      for (const auto& [v, left] : open) {
        if (v == j) continue;
        met &= left == 0 && uses.uses[bindings[v]->var.get()] == static_cast<int>(users[v].size());
      }
      if (met) return region.size() >= 2 ? std::vector<int>(region.begin(), region.end()) : std::vector<int>();
    }
    return {};
  }

  /*! \brief A call_tir of a loop program in this module (a legalized operator, or one a user
   *  wrote), or nullptr. */
  static const relax::GlobalVarNode* CallTirCallee(const relax::CallNode& call) {
    const auto* op = call.op.as<relax::OpNode>();
    if (op == nullptr || op->name() != "call_tir" || call.args.size() != 2 ||
        call.args[1].as<relax::TupleNode>() == nullptr) {
      return nullptr;
    }
    return call.args[0].as<relax::GlobalVarNode>();
  }

  /*! \brief An operator's pattern kind, or a called loop program's (PrimFuncPattern). */
  static OpPattern PatternOf(const relax::CallNode& call, const IRModule& mod) {
    if (const relax::GlobalVarNode* callee = CallTirCallee(call))
      return PrimFuncPattern(mod.LookupPrimFunc(callee->name));
    const auto* op = call.op.as<relax::OpNode>();
    return op != nullptr ? op->info().pattern : OpPattern::kOpaque;
  }

  /*! \brief The values a call reads: its arguments, or a call_tir's tuple of inputs. */
  static std::vector<relax::Expr> Operands(const relax::CallNode& call) {
    if (CallTirCallee(call) != nullptr) return call.args[1].as<relax::TupleNode>()->fields;
    return call.args;
  }

  /*! \brief Whether every variable of `vars` is among `of`. */
  static bool AllAmong(const std::vector<tir::Var>& vars, const std::vector<tir::Var>& of) {
    return std::all_of(vars.begin(), vars.end(), [&](const tir::Var& v) {
      return std::any_of(of.begin(), of.end(), [&](const tir::Var& o) { return o.same_as(v); });
    });
  }

  /*! \brief Whether the call's result names a shape variable none of its operands names. */
  static bool NamesNewShapeVars(const relax::CallNode& call, const relax::Var& result) {
    std::vector<tir::Var> produced, consumed;
    relax::CollectShapeVars(result->struct_info(), &produced);
    for (const relax::Expr& a : Operands(call)) relax::CollectShapeVars(a->struct_info(), &consumed);
    return !AllAmong(produced, consumed);
  }

  /*! \brief Whether a function of the group, whose parameters are its inputs, could bind every
   *  shape variable its values name: not when an input's dimension is only `past + seq` and no
   *  other gives `past` alone (a call binds a variable from a dimension v, c * v or v + c). */
  static bool BindsItsShapeVars(const Group& g, const std::vector<relax::VarBinding>& bindings) {
    std::set<const Object*> inside;
    for (int m : g.members) inside.insert(bindings[m]->var.get());
    std::vector<std::vector<tir::PrimExpr>> shapes;
    std::vector<tir::Var> named, bound;
    for (int m : g.members) {
      relax::CollectShapeVars(bindings[m]->var->struct_info(), &named);
      for (const relax::Expr& a : Operands(*bindings[m]->value.as<relax::CallNode>())) {
        if (inside.count(a.get())) continue;
        relax::CollectShapeVars(a->struct_info(), &bound);
        if (const auto* t = a->struct_info().as<relax::TensorStructInfoNode>(); t != nullptr && t->HasKnownShape()) {
          shapes.push_back(t->Dims());
        }
      }
    }
    return !tir::UnbindableShapeVar(shapes).defined() && AllAmong(named, bound);
  }

  /*! \brief The group's members with those that do not depend on its head first (each list in
   *  binding order, so still a topological order): a side computation merged into a
   *  convolution's epilogue (an int8 rescale factor) then runs before the convolution's loops,
   *  and the epilogue can move under them. */
  static std::vector<int> HeadLast(const Group& g, const std::vector<relax::VarBinding>& bindings,
                                   const std::set<const Object*>& inside) {
    std::set<const Object*> dependent;
    std::vector<int> before, after;
    for (int m : g.members) {
      bool dep = m == g.head;
      for (const relax::Expr& a : Operands(*bindings[m]->value.as<relax::CallNode>())) {
        dep = dep || (inside.count(a.get()) && dependent.count(a.get()));
      }
      if (dep) dependent.insert(bindings[m]->var.get());
      (dep ? after : before).push_back(m);
    }
    if (after.empty() || after.back() != g.members.back()) return g.members;  // the output stays last
    before.insert(before.end(), after.begin(), after.end());
    return before;
  }

  /*! \brief The sub-function for a group, and the binding that calls it. */
  absl::StatusOr<relax::VarBinding> EmitGroup(const Group& g, const std::vector<relax::VarBinding>& bindings,
                                              relax::BlockBuilder* builder) {
    std::set<const Object*> inside;
    for (int m : g.members) inside.insert(bindings[m]->var.get());
    // Inputs: arguments not produced inside the group, in order of first use.
    std::vector<relax::Expr> inputs;
    std::map<const Object*, relax::Var> param_of;
    std::vector<std::string> op_names;
    for (int m : g.members) {
      const auto* call = bindings[m]->value.as<relax::CallNode>();
      const relax::GlobalVarNode* callee = CallTirCallee(*call);
      op_names.push_back(callee != nullptr
                             ? callee->name
                             : absl::StrReplaceAll(call->op.as<relax::OpNode>()->name(), {{"nn.", ""}, {".", "_"}}));
      for (const relax::Expr& a : Operands(*call)) {
        if (inside.count(a.get()) || param_of.count(a.get())) continue;
        if (a->kind() == NodeKind::kShapeExpr) continue;
        const std::string hint = a.as<relax::VarNode>() ? a.as<relax::VarNode>()->name_hint : "c";
        param_of[a.get()] = relax::MakeVar(hint, a->struct_info());
        inputs.push_back(a);
      }
    }
    std::vector<relax::Var> params;
    for (const relax::Expr& in : inputs) params.push_back(param_of[in.get()]);
    std::vector<int> order = g.anchor == OpPattern::kOutEWiseFusable ? HeadLast(g, bindings, inside) : g.members;
    std::string fn_name = absl::StrCat("fused_", absl::StrJoin(op_names, "_"));
    relax::BlockBuilder sub;  // the group's calls are operators: it needs none of the module
    if (absl::Status s = sub.BeginFunction(fn_name, params, {{"Primitive", int64_t{1}}}); !s.ok()) return s;
    if (absl::Status s = sub.BeginDataflow(); !s.ok()) return s;
    std::map<const Object*, relax::Expr> local;
    for (const auto& [obj, var] : param_of) local[obj] = var;
    relax::Var last;
    for (size_t k = 0; k < order.size(); ++k) {
      const relax::VarBinding& b = bindings[order[k]];
      const auto* call = b->value.as<relax::CallNode>();
      std::vector<relax::Expr> operands;
      for (const relax::Expr& a : Operands(*call)) {
        auto it = local.find(a.get());
        operands.push_back(it != local.end() ? it->second : a);
      }
      std::vector<relax::Expr> args = operands;
      if (CallTirCallee(*call) != nullptr) args = {call->args[0], relax::MakeTuple(operands)};
      relax::Expr value = relax::MakeCall(call->op, args, call->attrs, call->sinfo_args);
      absl::StatusOr<relax::Var> v = k + 1 == order.size() ? sub.EmitOutput(value) : sub.Emit(value);
      if (!v.ok()) return v.status();
      local[b->var.get()] = *v;
      last = *v;
    }
    if (absl::Status s = sub.EndDataflow(); !s.ok()) return s;
    absl::StatusOr<relax::GlobalVar> emitted = sub.EmitFuncOutput(last);
    if (!emitted.ok()) return emitted.status();
    relax::Function fn = sub.Get().LookupFunction((*emitted)->name);
    Attrs attrs = fn->attrs;
    attrs.erase("global_symbol");
    fn = relax::MakeFunction(fn->params, fn->body, fn->ret_struct_info, attrs);
    relax::GlobalVar gv = builder->AddFunc(fn, fn_name);
    relax::Call call = relax::MakeCall(gv, inputs);
    absl::StatusOr<relax::Expr> normalized = builder->Normalize(call);
    if (!normalized.ok()) return normalized.status();
    const relax::VarBinding& last_binding = bindings[g.members.back()];
    return relax::VarBinding(new relax::VarBindingNode(last_binding->var, *normalized));
  }

  Option<int64_t> max_depth_{this, "max-depth", 32, "most operator calls in one fused function"};
};

MLC_REGISTER_PASS(FuseOpsPass);

}  // namespace

}  // namespace passes
}  // namespace mlc
