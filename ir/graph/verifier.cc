/*! \file verifier.cc
 *  \brief Well-formedness checks of both IR levels.
 */
#include "ir/graph/verifier.h"

#include <algorithm>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ir/graph/op.h"
#include "ir/graph/printer.h"
#include "ir/graph/resource_check.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/intrinsics.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/shape_expr.h"
#include "ir/tir/tir_util.h"

namespace mlc {
namespace {

using relax::StructInfo;
using tir::PrimExpr;
using tir::Stmt;

// ---------------------------------------------------------------------------------------------
// Loop level.

class PrimFuncVerifier {
 public:
  PrimFuncVerifier(const std::string& name) : func_name_(name) {}

  absl::Status Verify(const tir::PrimFuncNode* func) {
    // Shape variables are bound by the buffers the function is called with.
    std::vector<std::vector<PrimExpr>> shapes;
    for (const tir::Buffer& b : func->params) shapes.push_back(b->shape);
    if (tir::Var v = tir::UnbindableShapeVar(shapes); v.defined()) {
      return Error(absl::StrCat(
          "shape variable ", v->name,
          " is bound by no parameter dimension (one of the form v, c * v or v + c), so no call can bind it"));
    }
    for (const tir::Var& v : tir::ShapeVarsOf(func)) vars_.insert(v.get());
    for (const tir::Buffer& b : func->params) {
      if (!buffers_.insert(b.get()).second) return Error(absl::StrCat("buffer ", b->name, " is a parameter twice"));
      if (absl::Status s = CheckShape(b); !s.ok()) return s;
    }
    return VisitStmt(func->body);
  }

 private:
  absl::Status Error(const std::string& message) const {
    std::string where = absl::StrCat("in PrimFunc @", func_name_);
    if (!block_.empty()) absl::StrAppend(&where, ", block \"", block_, "\"");
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", message));
  }

  absl::Status CheckShape(const tir::Buffer& b) {
    for (const PrimExpr& s : b->shape) {
      if (!s->dtype.is_integer()) return Error(absl::StrCat("buffer ", b->name, " has a non-integer extent"));
      if (absl::Status st = VisitExpr(s); !st.ok()) return st;
    }
    return absl::OkStatus();
  }

  absl::Status UseBuffer(const tir::Buffer& b, size_t num_indices, const char* what) {
    if (!buffers_.count(b.get())) {
      return Error(
          absl::StrCat(what, " buffer ", b->name, ", which is neither a parameter nor an alloc_buffer in scope"));
    }
    if (num_indices != b->shape.size()) {
      return Error(absl::StrCat(what, " ", b->name, " with ", num_indices, " indices, but it has ", b->shape.size(),
                                " dimensions"));
    }
    return absl::OkStatus();
  }

  absl::Status VisitExprs(const std::vector<PrimExpr>& exprs) {
    for (const PrimExpr& e : exprs) {
      if (absl::Status s = VisitExpr(e); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status VisitExpr(const PrimExpr& e) {
    if (!e.defined()) return Error("missing expression");
    switch (e->kind()) {
      case NodeKind::kIntImm:
      case NodeKind::kFloatImm:
      case NodeKind::kStringImm: return absl::OkStatus();
      case NodeKind::kTirVar:
        if (!vars_.count(e.get())) {
          return Error(absl::StrCat("variable ", e.as<tir::TirVarNode>()->name,
                                    " is used outside the loop or block that binds it"));
        }
        return absl::OkStatus();
      case NodeKind::kNot: return VisitExpr(e.as<tir::NotNode>()->a);
      case NodeKind::kSelect: {
        const auto* s = e.as<tir::SelectNode>();
        return VisitExprs({s->condition, s->true_value, s->false_value});
      }
      case NodeKind::kCast: return VisitExpr(e.as<tir::CastNode>()->value);
      case NodeKind::kBufferLoad: {
        const auto* l = e.as<tir::BufferLoadNode>();
        if (absl::Status s = UseBuffer(l->buffer, l->indices.size(), "load from"); !s.ok()) return s;
        return VisitExprs(l->indices);
      }
      case NodeKind::kTirCall: {
        const auto* c = e.as<tir::TirCallNode>();
        const tir::IntrinsicInfo* info = tir::LookupIntrinsic(c->name);
        if (info == nullptr) return Error(absl::StrCat("unknown intrinsic T.", c->name));
        if (info->num_args >= 0 && static_cast<int>(c->args.size()) != info->num_args) {
          return Error(absl::StrCat("T.", c->name, " takes ", info->num_args, " arguments, got ", c->args.size()));
        }
        return VisitExprs(c->args);
      }
        MLC_BINARY_CASES {
          const auto* bin = static_cast<const tir::BinaryNode*>(e.get());
          return VisitExprs({bin->a, bin->b});
        }
        MLC_CASES_NOT_PRIM_EXPR
        return Error(absl::StrCat("unexpected expression ", NodeKindName(e->kind())));
    }
  }

  absl::Status VisitStmt(const Stmt& s) {
    if (!s.defined()) return Error("missing statement");
    switch (s->kind()) {
      case NodeKind::kBufferStore: {
        const auto* st = s.as<tir::BufferStoreNode>();
        if (absl::Status e = UseBuffer(st->buffer, st->indices.size(), "store to"); !e.ok()) return e;
        if (absl::Status e = VisitExprs(st->indices); !e.ok()) return e;
        return VisitExpr(st->value);
      }
      case NodeKind::kFor: {
        const auto* f = s.as<tir::ForNode>();
        if (absl::Status e = VisitExprs({f->min, f->extent}); !e.ok()) return e;
        if (!vars_.insert(f->loop_var.get()).second)
          return Error(absl::StrCat("loop variable ", f->loop_var->name, " is bound twice"));
        absl::Status body = VisitStmt(f->body);
        vars_.erase(f->loop_var.get());
        return body;
      }
      case NodeKind::kSeqStmt:
        for (const Stmt& inner : s.as<tir::SeqStmtNode>()->seq) {
          if (absl::Status e = VisitStmt(inner); !e.ok()) return e;
        }
        return absl::OkStatus();
      case NodeKind::kIfThenElse: {
        const auto* ite = s.as<tir::IfThenElseNode>();
        if (absl::Status e = VisitExpr(ite->condition); !e.ok()) return e;
        if (absl::Status e = VisitStmt(ite->then_case); !e.ok()) return e;
        return ite->else_case.defined() ? VisitStmt(ite->else_case) : absl::OkStatus();
      }
      case NodeKind::kEvaluate: return VisitExpr(s.as<tir::EvaluateNode>()->value);
      case NodeKind::kBlockRealize: {
        const auto* r = s.as<tir::BlockRealizeNode>();
        if (r->iter_values.size() != r->block->iter_vars.size()) {
          return Error(absl::StrCat("block ", r->block->name, " has ", r->block->iter_vars.size(),
                                    " iteration variables but ", r->iter_values.size(), " bound values"));
        }
        if (absl::Status e = VisitExprs(r->iter_values); !e.ok()) return e;
        if (absl::Status e = VisitExpr(r->predicate); !e.ok()) return e;
        return VisitStmt(r->block);
      }
      case NodeKind::kBlock: return VisitBlock(s.as<tir::BlockNode>());
      case NodeKind::kAllocate: {
        const auto* a = s.as<tir::AllocateNode>();
        if (absl::Status e = CheckShape(a->buffer); !e.ok()) return e;
        buffers_.insert(a->buffer.get());
        absl::Status body = VisitStmt(a->body);
        buffers_.erase(a->buffer.get());
        return body;
      }
        MLC_CASES_NOT_STMT
        return Error(absl::StrCat("unexpected statement ", NodeKindName(s->kind())));
    }
  }

  absl::Status VisitBlock(const tir::BlockNode* block) {
    std::string outer_block = block_;
    block_ = block->name;
    for (const tir::IterVar& iv : block->iter_vars) {
      if (absl::Status e = VisitExprs({iv.dom.min, iv.dom.extent}); !e.ok()) return e;
    }
    // Iteration variables shadow nothing: the loop variables stay visible for nested loops,
    // but references inside the block should go through the iteration variables.
    for (const tir::IterVar& iv : block->iter_vars) {
      if (!vars_.insert(iv.var.get()).second)
        return Error(absl::StrCat("iteration variable ", iv.var->name, " is bound twice"));
    }
    for (const tir::Buffer& b : block->alloc_buffers) {
      if (absl::Status e = CheckShape(b); !e.ok()) return e;
      if (!buffers_.insert(b.get()).second) return Error(absl::StrCat("buffer ", b->name, " is allocated twice"));
    }
    for (const auto* regions : {&block->reads, &block->writes}) {
      for (const tir::BufferRegion& r : *regions) {
        if (absl::Status e = UseBuffer(r.buffer, r.region.size(), "region of"); !e.ok()) return e;
        for (const tir::Range& range : r.region) {
          if (absl::Status e = VisitExprs({range.min, range.extent}); !e.ok()) return e;
        }
      }
    }
    if (block->init.defined()) {
      if (absl::Status e = VisitStmt(block->init); !e.ok()) return e;
    }
    if (absl::Status e = VisitStmt(block->body); !e.ok()) return e;
    for (const tir::IterVar& iv : block->iter_vars) vars_.erase(iv.var.get());
    for (const tir::Buffer& b : block->alloc_buffers) buffers_.erase(b.get());
    block_ = outer_block;
    return absl::OkStatus();
  }

  std::string func_name_;
  std::string block_;
  std::unordered_set<const Object*> vars_;
  std::unordered_set<const Object*> buffers_;
};

// ---------------------------------------------------------------------------------------------
// Graph level.

class FunctionVerifier {
 public:
  FunctionVerifier(const IRModule& mod, const std::string& name) : mod_(mod), func_name_(name) {}

  absl::Status Verify(const relax::FunctionNode* func) {
    std::vector<std::vector<PrimExpr>> param_shapes;
    for (const relax::Var& p : func->params) {
      if (p->kind() == NodeKind::kDataflowVar)
        return Error(absl::StrCat("parameter ", p->name_hint, " is a DataflowVar"));
      if (!defined_.insert(p.get()).second) return Error(absl::StrCat("parameter ", p->name_hint, " appears twice"));
      CollectShapes(p->struct_info(), &param_shapes);
    }
    // The signature defines the shape variables; a call binds each from a dimension that is
    // the variable itself.
    if (tir::Var v = tir::UnbindableShapeVar(param_shapes); v.defined()) {
      return Error(absl::StrCat(
          "shape variable ", v->name,
          " is bound by no parameter dimension (one of the form v, c * v or v + c), so no call can bind it"));
    }
    for (const tir::Var& v : func->SignatureShapeVars()) shape_vars_.insert(v.get());
    if (absl::Status s = CheckShapeVarsDefined(func->ret_struct_info, "the declared result"); !s.ok()) return s;
    for (const relax::BindingBlock& block : func->body->blocks) {
      if (absl::Status s = VisitBlock(block); !s.ok()) return s;
    }
    binding_.clear();
    if (absl::Status s = VisitExpr(func->body->body, false); !s.ok()) return s;
    if (func->body->body->kind() == NodeKind::kDataflowVar) {
      return Error(absl::StrCat("the function returns DataflowVar ", func->body->body.as<relax::VarNode>()->name_hint,
                                "; results must leave the dataflow block through R.output"));
    }
    if (!relax::IsBaseOf(func->ret_struct_info, func->body->body->struct_info())) {
      return Error(absl::StrCat("the body returns ", StructInfoToString(func->body->body->struct_info()),
                                " but the function declares ", StructInfoToString(func->ret_struct_info)));
    }
    return absl::OkStatus();
  }

 private:
  absl::Status Error(const std::string& message) const {
    std::string where = absl::StrCat("in function @", func_name_);
    if (!binding_.empty()) absl::StrAppend(&where, ", binding ", binding_);
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", message));
  }

  static void CollectShapes(const StructInfo& sinfo, std::vector<std::vector<PrimExpr>>* out) {
    if (const auto* t = sinfo.as<relax::TensorStructInfoNode>()) {
      out->push_back(t->Dims());
    } else if (const auto* tuple = sinfo.as<relax::TupleStructInfoNode>()) {
      for (const StructInfo& f : tuple->fields) CollectShapes(f, out);
    }
  }

  absl::Status CheckShapeVarsDefined(const StructInfo& sinfo, const char* what) const {
    std::vector<tir::Var> used;
    relax::CollectShapeVars(sinfo, &used);
    for (const tir::Var& v : used) {
      if (!shape_vars_.count(v.get())) {
        return Error(absl::StrCat(what, " ", StructInfoToString(sinfo), " uses shape variable ", v->name,
                                  ", which neither the function's signature nor an earlier R.match_cast defines"));
      }
    }
    return absl::OkStatus();
  }

  /*! \brief An R.match_cast defines its target's new shape variables; each must be bound by a
   *         dimension of the target (v, c * v, v + c), as the run time binds it from the value. */
  absl::Status DefineMatchCastVars(const relax::Expr& value) {
    const relax::TensorStructInfoNode* target = relax::MatchCastTarget(value);
    if (target == nullptr) return absl::OkStatus();
    std::vector<PrimExpr> dims = target->Dims();
    std::vector<tir::Var> used;
    for (const PrimExpr& d : dims) tir::CollectVars(d, &used);
    std::vector<const Object*> fresh;
    for (const tir::Var& v : used) {
      if (shape_vars_.count(v.get())) continue;
      bool bound = false;
      for (const PrimExpr& d : dims) bound = bound || tir::BindingVarOf(d).get() == v.get();
      if (!bound) {
        return Error(absl::StrCat("R.match_cast to ", StructInfoToString(StructInfo(target)),
                                  " defines shape variable ", v->name,
                                  " but no dimension binds it (one of the form v, c * v or v + c)"));
      }
      fresh.push_back(v.get());
    }
    shape_vars_.insert(fresh.begin(), fresh.end());
    return absl::OkStatus();
  }

  absl::Status VisitBlock(const relax::BindingBlock& block) {
    dataflow_locals_.clear();
    for (const relax::VarBinding& b : block->bindings) {
      binding_ = b->var->name_hint;
      if (absl::Status s = VisitExpr(b->value, block->is_dataflow); !s.ok()) return s;
      bool is_dataflow_var = b->var->kind() == NodeKind::kDataflowVar;
      if (is_dataflow_var && !block->is_dataflow) {
        return Error(absl::StrCat("DataflowVar ", b->var->name_hint, " is bound outside a dataflow block"));
      }
      if (!defined_.insert(b->var.get()).second)
        return Error(absl::StrCat("variable ", b->var->name_hint, " is defined twice"));
      if (is_dataflow_var) dataflow_locals_.insert(b->var.get());
      const StructInfo& value_sinfo = b->value->struct_info();
      if (!value_sinfo.defined()) return Error("the value has no struct info (it was not normalized)");
      if (absl::Status s = DefineMatchCastVars(b->value); !s.ok()) return s;
      if (absl::Status s = CheckShapeVarsDefined(b->var->struct_info(), "its struct info"); !s.ok()) return s;
      if (absl::Status s = CheckShapeVarsDefined(value_sinfo, "the value's struct info"); !s.ok()) return s;
      if (!relax::IsBaseOf(b->var->struct_info(), value_sinfo)) {
        return Error(absl::StrCat("declared ", StructInfoToString(b->var->struct_info()), " but the value is ",
                                  StructInfoToString(value_sinfo)));
      }
    }
    binding_.clear();
    // DataflowVars are local to their block.
    for (const Object* local : dataflow_locals_) {
      defined_.erase(local);
      out_of_scope_.insert(local);
    }
    dataflow_locals_.clear();
    return absl::OkStatus();
  }

  absl::Status VisitExpr(const relax::Expr& e, bool in_dataflow) {
    switch (e->kind()) {
      case NodeKind::kVar:
      case NodeKind::kDataflowVar: {
        const auto* v = e.as<relax::VarNode>();
        if (defined_.count(v)) return absl::OkStatus();
        if (out_of_scope_.count(v)) {
          return Error(absl::StrCat("DataflowVar ", v->name_hint, " is used outside its dataflow block"));
        }
        return Error(absl::StrCat("variable ", v->name_hint, " is used before it is defined (or never defined)"));
      }
      case NodeKind::kShapeExpr: return CheckShapeVarsDefined(e->struct_info(), "shape value");
      case NodeKind::kConstant:
      case NodeKind::kExternFunc:
      case NodeKind::kOp: return absl::OkStatus();
      case NodeKind::kGlobalVar: {
        const std::string& name = e.as<relax::GlobalVarNode>()->name;
        if (!mod_.Contains(name)) return Error(absl::StrCat("reference to @", name, ", which is not in the module"));
        return absl::OkStatus();
      }
      case NodeKind::kTuple:
        for (const relax::Expr& f : e.as<relax::TupleNode>()->fields) {
          if (absl::Status s = VisitExpr(f, in_dataflow); !s.ok()) return s;
        }
        return absl::OkStatus();
      case NodeKind::kTupleGetItem: return VisitExpr(e.as<relax::TupleGetItemNode>()->tuple, in_dataflow);
      case NodeKind::kCall: return VisitCall(e.as<relax::CallNode>(), in_dataflow);
      case NodeKind::kSeqExpr: return Error("nested SeqExpr is not supported");
      case NodeKind::kIf:
        return VisitIf(e.as<relax::IfNode>(), in_dataflow);
        MLC_CASES_NOT_EXPR
        return Error(absl::StrCat("unexpected expression ", NodeKindName(e->kind())));
    }
  }

  /*! \brief An if: outside dataflow blocks, a one-element integer or bool condition, and each
   *         branch one expression whose operands are variables, constants or tuples of them. */
  absl::Status VisitIf(const relax::IfNode* branch, bool in_dataflow) {
    if (in_dataflow) return Error("an if is not allowed inside a dataflow block (bind it after R.output)");
    const auto* cond = branch->cond->struct_info().as<relax::TensorStructInfoNode>();
    bool one_element =
        cond != nullptr && (cond->ndim == 0 || !cond->shape || (cond->shape->size() == 1 && (*cond->shape)[0] == 1));
    if (!one_element ||
        !(cond->dtype.is_void() || cond->dtype.is_bool() || cond->dtype.is_int() || cond->dtype.is_uint())) {
      return Error(absl::StrCat("the condition of an if must be a one-element bool or integer tensor, not ",
                                StructInfoToString(branch->cond->struct_info())));
    }
    if (absl::Status s = VisitExpr(branch->cond, in_dataflow); !s.ok()) return s;
    for (const relax::Expr* part : {&branch->true_branch, &branch->false_branch}) {
      std::vector<relax::Expr> operands;
      if (const auto* call = part->as<relax::CallNode>()) {
        operands = call->args;
      } else if (const auto* tuple = part->as<relax::TupleNode>()) {
        operands = tuple->fields;
      }
      std::function<bool(const relax::Expr&)> leaf = [&](const relax::Expr& o) {
        if (const auto* tuple = o.as<relax::TupleNode>())
          return std::all_of(tuple->fields.begin(), tuple->fields.end(), leaf);
        return o->kind() != NodeKind::kCall && o->kind() != NodeKind::kIf && o->kind() != NodeKind::kSeqExpr;
      };
      if (!std::all_of(operands.begin(), operands.end(), leaf)) {
        return Error(absl::StrCat("an if branch must be one call of variables and constants, not ", PrintExpr(*part),
                                  " (bind the rest in a function and call it)"));
      }
      if (absl::Status s = VisitExpr(*part, in_dataflow); !s.ok()) return s;
    }
    return absl::OkStatus();
  }

  absl::Status VisitCall(const relax::CallNode* call, bool in_dataflow) {
    if (absl::Status s = VisitExpr(call->op, in_dataflow); !s.ok()) return s;
    for (const relax::Expr& a : call->args) {
      if (absl::Status s = VisitExpr(a, in_dataflow); !s.ok()) return s;
    }
    if (in_dataflow && !relax::IsPureCall(*call)) {
      return Error(absl::StrCat(PrintExpr(call->op), " has side effects and is not allowed inside a dataflow block"));
    }
    absl::StatusOr<StructInfo> inferred = relax::InferCallStructInfo(*call, &mod_);
    if (!inferred.ok()) return Error(std::string(inferred.status().message()));
    if (call->struct_info().defined() && !relax::IsBaseOf(call->struct_info(), *inferred)) {
      return Error(absl::StrCat("the call is annotated ", StructInfoToString(call->struct_info()), " but infers to ",
                                StructInfoToString(*inferred)));
    }
    if (const auto* op = call->op.as<relax::OpNode>()) {
      if (op->name() == "call_tir") return CheckCallTIR(call);
    }
    return absl::OkStatus();
  }

  /*! \brief call_tir(f, (args...)): f is a PrimFunc whose buffers match args then outputs. */
  absl::Status CheckCallTIR(const relax::CallNode* call) {
    const std::string& name = call->args[0].as<relax::GlobalVarNode>()->name;
    tir::PrimFunc callee = mod_.LookupPrimFunc(name);
    if (!callee.defined()) return Error(absl::StrCat("R.call_tir targets @", name, ", which is not a PrimFunc"));
    std::vector<StructInfo> tensors;
    for (const relax::Expr& a : call->args[1].as<relax::TupleNode>()->fields) tensors.push_back(a->struct_info());
    if (const auto* tuple = call->sinfo_args[0].as<relax::TupleStructInfoNode>()) {
      tensors.insert(tensors.end(), tuple->fields.begin(), tuple->fields.end());
    } else {
      tensors.push_back(call->sinfo_args[0]);
    }
    if (tensors.size() != callee->params.size()) {
      return Error(absl::StrCat("R.call_tir passes ", tensors.size(), " tensors (inputs and outputs) to @", name,
                                ", which takes ", callee->params.size(), " buffers"));
    }
    std::map<const tir::TirVarNode*, std::pair<tir::Var, PrimExpr>> bound;
    tir::Analyzer analyzer;
    for (size_t i = 0; i < tensors.size(); ++i) {
      const tir::Buffer& buffer = callee->params[i];
      const auto* t = tensors[i].as<relax::TensorStructInfoNode>();
      if (t == nullptr) return Error(absl::StrCat("argument ", i, " of R.call_tir(@", name, ") is not a tensor"));
      if (!t->dtype.is_void() && t->dtype != buffer->dtype) {
        return Error(absl::StrCat("R.call_tir(@", name, "): buffer ", buffer->name, " is ", buffer->dtype.ToString(),
                                  " but the tensor passed is ", t->dtype.ToString()));
      }
      if (!t->HasKnownShape()) continue;
      // The callee's shape variables take the caller's dimensions; a dimension that is then
      // provably different is an error (what cannot be decided is checked when it runs).
      std::vector<PrimExpr> dims = t->Dims();
      bool match = dims.size() == buffer->shape.size();
      for (size_t d = 0; match && d < dims.size(); ++d) {
        if (const auto* v = buffer->shape[d].as<tir::TirVarNode>(); v != nullptr && !bound.count(v)) {
          bound.emplace(v, std::make_pair(tir::Var(const_cast<tir::TirVarNode*>(v)), dims[d]));
        }
      }
      for (size_t d = 0; match && d < dims.size(); ++d) {
        std::vector<std::pair<tir::Var, PrimExpr>> map;
        for (const auto& [key, binding] : bound) map.push_back(binding);
        PrimExpr expected = analyzer.Simplify(tir::Substitute(buffer->shape[d], map));
        PrimExpr difference = analyzer.Simplify(tir::operator-(tir::Cast(DataType::Int64(), expected), dims[d]));
        const int64_t* diff = tir::AsConstInt(difference);
        match = diff == nullptr || *diff == 0;
      }
      if (!match) {
        return Error(absl::StrCat("R.call_tir(@", name, "): buffer ", buffer->name, " has shape ",
                                  StructInfoToString(relax::TensorSInfoUnknownShape(buffer->dtype, buffer->ndim())),
                                  " that does not match the tensor passed, ", StructInfoToString(tensors[i])));
      }
    }
    return absl::OkStatus();
  }

  const IRModule& mod_;
  std::string func_name_;
  std::string binding_;
  std::unordered_set<const Object*> defined_;
  std::unordered_set<const Object*> shape_vars_;
  std::unordered_set<const Object*> dataflow_locals_;
  std::unordered_set<const Object*> out_of_scope_;
};

}  // namespace

absl::Status VerifyModule(const IRModule& mod) {
  for (const auto& [name, func] : mod.functions()) {
    absl::Status status;
    if (const auto* prim = func.as<tir::PrimFuncNode>()) {
      status = PrimFuncVerifier(name).Verify(prim);
    } else {
      status = FunctionVerifier(mod, name).Verify(func.as<relax::FunctionNode>());
    }
    if (!status.ok()) return status;
  }
  return CheckResourceLimits(mod);
}

}  // namespace mlc
