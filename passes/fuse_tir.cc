/*! \file fuse_tir.cc
 *  \brief fuse-tir: each Primitive sub-function whose body is call_tirs becomes one PrimFunc.
 *
 *  The PrimFunc takes the sub-function's parameters (as buffers of the same names) and its
 *  result; the callees' loop nests are inlined in order, with fresh loop and block variables,
 *  each intermediate result becoming an alloc_buffer named after the callee's output buffer.
 *  Call sites `f(args)` become `R.call_tir(cls.f, (args), out_sinfo=...)`. PrimFuncs nothing
 *  calls any more are removed. Preconditions: legalize has run on the sub-function (any other
 *  binding is an error naming it); constants inside the sub-function are not supported (fuse-ops
 *  passes them as parameters). Cost: linear in the size of the inlined PrimFuncs.
 */
#include <map>
#include <set>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/graph/expr_functor.h"
#include "ir/graph/op.h"
#include "ir/graph/printer.h"
#include "ir/graph/structural_equal.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/shape_expr.h"
#include "ir/tir/tir_functor.h"
#include "passes/pass.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief Copies a PrimFunc body with fresh loop/block variables and alloc_buffers, mapping
 *         parameter buffers to the caller's. */
class Inliner : public tir::StmtExprMutator {
 public:
  /*! \brief `buffers` maps the callee's parameters to the caller's buffers; the callee's
   *         shape variables take the caller's dimensions they are matched with. */
  explicit Inliner(std::map<const Object*, tir::Buffer> buffers, std::set<std::string>* block_names)
      : buffers_(std::move(buffers)), block_names_(block_names) {
    for (const auto& [param, buffer] : buffers_) {
      const auto* p = static_cast<const tir::BufferNode*>(param);
      for (size_t d = 0; d < p->shape.size() && d < buffer->shape.size(); ++d) {
        if (const auto* v = p->shape[d].as<tir::TirVarNode>(); v != nullptr && !vars_.count(v)) {
          vars_[v] = v->dtype == buffer->shape[d]->dtype ? buffer->shape[d] : tir::Cast(v->dtype, buffer->shape[d]);
        }
      }
    }
  }
  tir::Buffer VisitBuffer(const tir::Buffer& b) override {
    auto it = buffers_.find(b.get());
    if (it != buffers_.end()) return it->second;
    // An alloc_buffer of the callee: a fresh copy per inlined call, in the caller's shape variables.
    std::vector<tir::PrimExpr> shape;
    for (const tir::PrimExpr& d : b->shape) shape.push_back(VisitExpr(d));
    tir::Buffer copy = tir::MakeBuffer(b->name, shape, b->dtype);
    buffers_[b.get()] = copy;
    return copy;
  }

 protected:
  tir::PrimExpr VisitExpr_(const tir::TirVarNode* op, const tir::PrimExpr& self) override {
    auto it = vars_.find(op);
    return it == vars_.end() ? self : tir::PrimExpr(it->second);
  }
  tir::Stmt VisitStmt_(const tir::ForNode* op, const tir::Stmt& self) override {
    tir::Var v = tir::MakeVar(op->loop_var->name, op->loop_var->dtype);
    vars_[op->loop_var.get()] = v;
    return tir::Stmt(new tir::ForNode(v, VisitExpr(op->min), VisitExpr(op->extent), op->for_kind, VisitStmt(op->body),
                                      op->annotations));
  }
  tir::Stmt VisitStmt_(const tir::BlockNode* op, const tir::Stmt& self) override {
    std::vector<tir::IterVar> iters;
    for (const tir::IterVar& iv : op->iter_vars) {
      tir::Var v = tir::MakeVar(iv.var->name, iv.var->dtype);
      vars_[iv.var.get()] = v;
      iters.push_back({v, {VisitExpr(iv.dom.min), VisitExpr(iv.dom.extent)}, iv.kind});
    }
    std::vector<tir::Buffer> allocs;
    for (const tir::Buffer& b : op->alloc_buffers) allocs.push_back(VisitBuffer(b));
    bool changed = false;
    // Block names stay unique in the fused function (two inlined ReLUs are both "compute"):
    // schedules find blocks by name.
    std::string name = op->name;
    for (int i = 1; !block_names_->insert(name).second; ++i) name = absl::StrCat(op->name, "_", i);
    return tir::Stmt(new tir::BlockNode(name, iters, VisitRegions(op->reads, &changed),
                                        VisitRegions(op->writes, &changed), allocs, VisitStmt(op->init),
                                        VisitStmt(op->body), op->annotations));
  }

 private:
  std::map<const Object*, tir::Buffer> buffers_;
  std::map<const Object*, tir::PrimExpr> vars_;
  std::set<std::string>* block_names_;
};

/*! \brief A buffer of the fused PrimFunc for a value of the fused function. A parameter's or the
 *  result's dimensions are generalized (`seq * batch` -> `d0`) so the kernel binds every shape
 *  variable from them; an intermediate's (`intermediate`) take the variables made for the same
 *  expressions and are otherwise left as they are (`a + b` of the parameters' a and b: no
 *  parameter would bind a fresh variable for it). */
absl::StatusOr<tir::Buffer> BufferFor(const std::string& name, const relax::StructInfo& sinfo, const std::string& what,
                                      tir::DimGeneralizer* dims, bool intermediate = false) {
  const auto* t = sinfo.as<relax::TensorStructInfoNode>();
  if (t == nullptr || !t->HasKnownShape()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be a tensor of known shape, got ", relax::StructInfoToString(sinfo)));
  }
  return tir::MakeBuffer(name, intermediate ? dims->GeneralizeSeen(t->Dims()) : dims->Generalize(t->Dims()), t->dtype);
}

absl::StatusOr<tir::PrimFunc> FusePrimitive(const std::string& name, const relax::FunctionNode* func,
                                            const IRModule& mod) {
  auto error = [&](const std::string& msg) { return absl::InvalidArgumentError(absl::StrCat("@", name, ": ", msg)); };
  std::map<const Object*, tir::Buffer> buffer_of;
  std::vector<tir::Buffer> params;
  tir::DimGeneralizer dims;
  for (const relax::Var& p : func->params) {
    absl::StatusOr<tir::Buffer> b =
        BufferFor(p->name_hint, p->struct_info(), absl::StrCat("parameter ", p->name_hint), &dims);
    if (!b.ok()) return error(std::string(b.status().message()));
    buffer_of[p.get()] = *b;
    params.push_back(*b);
  }
  // The result's sizes are generalized next, so that an intermediate of the same size (whose
  // variables no parameter binds) takes the variable the result's buffer binds.
  if (const auto* result = func->body->body->struct_info().as<relax::TensorStructInfoNode>();
      result != nullptr && result->HasKnownShape()) {
    dims.Generalize(result->Dims());
  }
  std::vector<tir::Buffer> allocs;
  std::vector<tir::Stmt> stmts;
  std::set<std::string> block_names;  // across the inlined calls
  std::vector<std::string> source_ops;
  for (const relax::BindingBlock& block : func->body->blocks) {
    for (const relax::VarBinding& b : block->bindings) {
      if (const auto* alias = b->value.as<relax::VarNode>()) {
        auto it = buffer_of.find(alias);
        if (it == buffer_of.end())
          return error(absl::StrCat("binding ", b->var->name_hint, " refers to an unknown value"));
        buffer_of[b->var.get()] = it->second;
        continue;
      }
      const auto* call = b->value.as<relax::CallNode>();
      const auto* op = call ? call->op.as<relax::OpNode>() : nullptr;
      if (op == nullptr || op->name() != "call_tir") {
        return error(absl::StrCat("binding ", b->var->name_hint, " = ", PrintExpr(b->value),
                                  " is not a call_tir; run legalize before fuse-tir"));
      }
      const std::string& callee_name = call->args[0].as<relax::GlobalVarNode>()->name;
      tir::PrimFunc callee = mod.LookupPrimFunc(callee_name);
      if (!callee.defined()) return error(absl::StrCat("call_tir of @", callee_name, ", which is not a PrimFunc"));
      std::string origin = GetStringAttr(callee->attrs, kSourceOpsAttr);  // hand-written PrimFuncs have none
      if (!origin.empty()) source_ops.push_back(origin);
      const auto& args = call->args[1].as<relax::TupleNode>()->fields;
      if (call->sinfo_args[0]->kind() != NodeKind::kTensorStructInfo || callee->params.size() != args.size() + 1) {
        return error(absl::StrCat("call_tir of @", callee_name, " with several outputs is not supported"));
      }
      std::map<const Object*, tir::Buffer> map;
      for (size_t i = 0; i < args.size(); ++i) {
        if (args[i]->kind() == NodeKind::kConstant) {
          return error("constants inside a fused function are not supported; pass them as parameters");
        }
        auto it = buffer_of.find(args[i].get());
        if (it == buffer_of.end())
          return error(absl::StrCat("argument ", PrintExpr(args[i]), " of @", callee_name, " is unknown"));
        map[callee->params[i].get()] = it->second;
      }
      const tir::Buffer& out_param = callee->params.back();
      absl::StatusOr<tir::Buffer> out = BufferFor(out_param->name, call->sinfo_args[0], "a call_tir output", &dims,
                                                  /*intermediate=*/b->var.get() != func->body->body.get());
      if (!out.ok()) return error(std::string(out.status().message()));
      map[out_param.get()] = *out;
      buffer_of[b->var.get()] = *out;
      allocs.push_back(*out);
      Inliner inliner(map, &block_names);
      const tir::BlockNode* root = tir::GetRootBlock(callee->body);
      if (root != nullptr) {
        for (const tir::Buffer& a : root->alloc_buffers) allocs.push_back(inliner.VisitBuffer(a));
        stmts.push_back(inliner.VisitStmt(root->body));
      } else {
        stmts.push_back(inliner.VisitStmt(callee->body));
      }
    }
  }
  auto result = buffer_of.find(func->body->body.get());
  if (result == buffer_of.end()) return error("the result must be a tensor bound in the function");
  tir::Buffer output = result->second;
  for (const tir::Buffer& p : params) {
    if (p.same_as(output)) return error("returning a parameter unchanged is not supported");
  }
  std::vector<tir::Buffer> kept_allocs;
  for (const tir::Buffer& a : allocs) {
    if (!a.same_as(output)) kept_allocs.push_back(a);
  }
  params.push_back(output);
  Attrs attrs{{"tir.noalias", true}};
  if (!source_ops.empty()) attrs[kSourceOpsAttr] = absl::StrJoin(source_ops, ", ");
  return tir::PrimFunc(new tir::PrimFuncNode(params, tir::MakeRootBlock(kept_allocs, tir::MakeSeq(stmts)), attrs));
}

/*! \brief Calls of fused functions become call_tir. */
class CallSiteRewriter : public relax::ExprMutator {
 public:
  struct Target {
    std::string prim_func;  // the PrimFunc its calls go to (an equal one may stand for several)
    relax::StructInfo ret;
  };
  CallSiteRewriter(const IRModule& mod, const std::map<std::string, Target>& fused)
      : relax::ExprMutator(mod), fused_(fused) {}

 protected:
  relax::Expr VisitExpr_(const relax::CallNode* op, const relax::Expr& self) override {
    relax::Expr e = relax::ExprMutator::VisitExpr_(op, self);
    const auto* call = e.as<relax::CallNode>();
    const auto* gv = call ? call->op.as<relax::GlobalVarNode>() : nullptr;
    if (gv == nullptr) return e;
    auto it = fused_.find(gv->name);
    if (it == fused_.end()) return e;
    return relax::MakeCall(relax::GetOpOrDie("call_tir"),
                           {relax::MakeGlobalVar(it->second.prim_func), relax::MakeTuple(call->args)}, {},
                           {it->second.ret});
  }

 private:
  const std::map<std::string, Target>& fused_;
};

class FuseTirPass : public Pass {
 public:
  std::string name() const override { return "fuse-tir"; }
  std::string description() const override {
    return "Turns each Primitive sub-function whose body is call_tirs into one PrimFunc (intermediates become "
           "alloc_buffers) and its call sites into one call_tir; the PrimFuncs it merged are left for remove-unused.";
  }
  absl::StatusOr<IRModule> Run(const IRModule& mod) override {
    IRModule out = mod;
    std::map<std::string, CallSiteRewriter::Target> fused;
    // Repeated layers fuse into equal PrimFuncs: one of them serves all their call sites.
    std::unordered_multimap<size_t, std::string> made;
    for (const auto& [name, func] : mod.functions()) {
      const auto* f = func.as<relax::FunctionNode>();
      if (f == nullptr || !f->IsPrimitive()) continue;
      absl::StatusOr<tir::PrimFunc> prim = FusePrimitive(name, f, mod);
      if (!prim.ok()) return prim.status();
      const size_t hash = StructuralHash(*prim);
      std::string equal;
      auto [begin, end] = made.equal_range(hash);
      for (auto it = begin; it != end && equal.empty(); ++it) {
        if (StructuralEqual(out.Lookup(it->second), *prim)) equal = it->second;
      }
      if (equal.empty()) {
        out.Add(name, *prim);
        made.emplace(hash, name);
        fused[name] = {name, f->ret_struct_info};
      } else {
        out.Remove(name);
        fused[name] = {equal, f->ret_struct_info};
      }
    }
    if (fused.empty()) return mod;
    CallSiteRewriter rewriter(out, fused);
    IRModule rewritten = out;
    for (const auto& [name, func] : out.functions()) {
      relax::Function f = func.as_ref<relax::Function>();
      if (!f.defined()) continue;
      absl::StatusOr<relax::Function> r = rewriter.VisitFunction(f);
      if (!r.ok()) return r.status();
      if (!r->same_as(f)) rewritten.Add(name, *r);
    }
    return rewritten;
  }
};

MLC_REGISTER_PASS(FuseTirPass);

}  // namespace

}  // namespace passes
}  // namespace mlc
