/*! \file structural_equal.cc
 *  \brief Structural equality (with a first-difference report) and hashing.
 *
 *  Both walk the IR in the same fixed order. Equality keeps a map from each variable or
 *  buffer defined on the left to its counterpart on the right; hashing numbers definitions
 *  in visiting order and hashes a use by that number, so renaming changes neither.
 */
#include "ir/graph/structural_equal.h"

#include <unordered_map>
#include <vector>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/graph/printer.h"
#include "ir/tir/shape_expr.h"

namespace mlc {
namespace {

using relax::StructInfo;
using tir::PrimExpr;
using tir::Stmt;

class Equal {
 public:
  bool Module(const IRModule& a, const IRModule& b) {
    if (a.functions().size() != b.functions().size()) {
      std::vector<std::string> na, nb;
      for (const auto& [n, f] : a.functions()) na.push_back(n);
      for (const auto& [n, f] : b.functions()) nb.push_back(n);
      return Fail(
          absl::StrCat("function sets differ: [", absl::StrJoin(na, ", "), "] vs [", absl::StrJoin(nb, ", "), "]"));
    }
    auto ia = a.functions().begin();
    auto ib = b.functions().begin();
    for (; ia != a.functions().end(); ++ia, ++ib) {
      if (ia->first != ib->first) return Fail(absl::StrCat("function names differ: ", ia->first, " vs ", ib->first));
      path_.push_back(absl::StrCat("@", ia->first));
      if (!Func(ia->second, ib->second)) return false;
      path_.pop_back();
    }
    if (a.attrs() != b.attrs()) return Fail("module attributes differ");
    return true;
  }

  bool Func(const BaseFunc& a, const BaseFunc& b) {
    if (a->kind() != b->kind()) return Fail("one is a PrimFunc, the other a graph function");
    if (StructuralAttrs(a->attrs) != StructuralAttrs(b->attrs)) return Fail("function attributes differ");
    if (const auto* pa = a.as<tir::PrimFuncNode>()) {
      const auto* pb = b.as<tir::PrimFuncNode>();
      if (pa->params.size() != pb->params.size()) return Fail("parameter counts differ");
      if (!DefineShapeVars(tir::ShapeVarsOf(pa), tir::ShapeVarsOf(pb))) return false;
      for (size_t i = 0; i < pa->params.size(); ++i) {
        if (!DefineBuffer(pa->params[i], pb->params[i])) return false;
      }
      return StmtEq(pa->body, pb->body);
    }
    const auto* fa = a.as<relax::FunctionNode>();
    const auto* fb = b.as<relax::FunctionNode>();
    if (fa->params.size() != fb->params.size()) return Fail("parameter counts differ");
    if (!DefineShapeVars(fa->ShapeVars(), fb->ShapeVars())) return false;
    for (size_t i = 0; i < fa->params.size(); ++i) {
      if (!DefineVar(fa->params[i], fb->params[i])) return false;
    }
    if (!SInfo(fa->ret_struct_info, fb->ret_struct_info)) return Fail("declared results differ");
    return ExprEq(fa->body, fb->body);
  }

  std::string Report() const { return absl::StrCat(absl::StrJoin(path_, " / "), ": ", message_); }

 private:
  bool Fail(std::string message) {
    if (message_.empty()) message_ = std::move(message);
    return false;
  }

  // ---- Definitions.
  bool DefineVar(const relax::Var& a, const relax::Var& b) {
    if (a->kind() != b->kind())
      return Fail(absl::StrCat("var ", a->name_hint, " vs ", b->name_hint, ": Var vs DataflowVar"));
    if (!SInfo(a->struct_info(), b->struct_info())) {
      return Fail(absl::StrCat("var ", a->name_hint, ": struct info ", StructInfoToString(a->struct_info()), " vs ",
                               StructInfoToString(b->struct_info())));
    }
    map_[a.get()] = b.get();
    return true;
  }
  /*! \brief A function's shape variables are defined by their order of first appearance in
   *         its signature. */
  bool DefineShapeVars(const std::vector<tir::Var>& a, const std::vector<tir::Var>& b) {
    if (a.size() != b.size()) return Fail("numbers of shape variables differ");
    for (size_t i = 0; i < a.size(); ++i) {
      if (!DefineTirVar(a[i], b[i])) return false;
    }
    return true;
  }
  bool DefineTirVar(const tir::Var& a, const tir::Var& b) {
    if (a->dtype != b->dtype) return Fail(absl::StrCat("loop var ", a->name, ": dtype differs"));
    map_[a.get()] = b.get();
    return true;
  }
  bool DefineBuffer(const tir::Buffer& a, const tir::Buffer& b) {
    if (a->dtype != b->dtype) return Fail(absl::StrCat("buffer ", a->name, ": dtype differs"));
    if (a->shape.size() != b->shape.size()) return Fail(absl::StrCat("buffer ", a->name, ": rank differs"));
    for (size_t i = 0; i < a->shape.size(); ++i) {
      if (!PrimEq(a->shape[i], b->shape[i])) return Fail(absl::StrCat("buffer ", a->name, ": shape differs"));
    }
    map_[a.get()] = b.get();
    return true;
  }
  bool Use(const Object* a, const Object* b, const std::string& what) {
    auto it = map_.find(a);
    if (it == map_.end() ? a != b : it->second != b) return Fail(absl::StrCat("different ", what, " referenced"));
    return true;
  }

  // ---- Loop level.
  bool PrimEq(const PrimExpr& a, const PrimExpr& b) {
    if (a.same_as(b)) return true;
    if (!a.defined() || !b.defined()) return Fail("expression present on one side only");
    if (a->kind() != b->kind() || a->dtype != b->dtype) {
      return Fail(absl::StrCat("expressions differ: ", PrintPrimExpr(a), " vs ", PrintPrimExpr(b)));
    }
    switch (a->kind()) {
      case NodeKind::kIntImm:
        return a.as<tir::IntImmNode>()->value == b.as<tir::IntImmNode>()->value ||
               Fail(absl::StrCat("constants differ: ", PrintPrimExpr(a), " vs ", PrintPrimExpr(b)));
      case NodeKind::kFloatImm: {
        double x = a.as<tir::FloatImmNode>()->value, y = b.as<tir::FloatImmNode>()->value;
        return x == y || (x != x && y != y) ||
               Fail(absl::StrCat("constants differ: ", PrintPrimExpr(a), " vs ", PrintPrimExpr(b)));
      }
      case NodeKind::kStringImm:
        return a.as<tir::StringImmNode>()->value == b.as<tir::StringImmNode>()->value || Fail("strings differ");
      case NodeKind::kTirVar:
        return Use(
            a.get(), b.get(),
            absl::StrCat("variables (", a.as<tir::TirVarNode>()->name, " vs ", b.as<tir::TirVarNode>()->name, ")"));
      case NodeKind::kNot: return PrimEq(a.as<tir::NotNode>()->a, b.as<tir::NotNode>()->a);
      case NodeKind::kSelect: {
        const auto *x = a.as<tir::SelectNode>(), *y = b.as<tir::SelectNode>();
        return PrimEq(x->condition, y->condition) && PrimEq(x->true_value, y->true_value) &&
               PrimEq(x->false_value, y->false_value);
      }
      case NodeKind::kCast: return PrimEq(a.as<tir::CastNode>()->value, b.as<tir::CastNode>()->value);
      case NodeKind::kBufferLoad: {
        const auto *x = a.as<tir::BufferLoadNode>(), *y = b.as<tir::BufferLoadNode>();
        return Use(x->buffer.get(), y->buffer.get(),
                   absl::StrCat("buffers (", x->buffer->name, " vs ", y->buffer->name, ")")) &&
               PrimList(x->indices, y->indices);
      }
      case NodeKind::kTirCall: {
        const auto *x = a.as<tir::TirCallNode>(), *y = b.as<tir::TirCallNode>();
        if (x->name != y->name) return Fail(absl::StrCat("intrinsics differ: ", x->name, " vs ", y->name));
        return PrimList(x->args, y->args);
      }
        MLC_BINARY_CASES {
          const auto* x = static_cast<const tir::BinaryNode*>(a.get());
          const auto* y = static_cast<const tir::BinaryNode*>(b.get());
          return PrimEq(x->a, y->a) && PrimEq(x->b, y->b);
        }
        MLC_CASES_NOT_PRIM_EXPR
        return Fail("unexpected expression kind");
    }
  }

  bool PrimList(const std::vector<PrimExpr>& a, const std::vector<PrimExpr>& b) {
    if (a.size() != b.size()) return Fail("index counts differ");
    for (size_t i = 0; i < a.size(); ++i) {
      if (!PrimEq(a[i], b[i])) return false;
    }
    return true;
  }

  bool Regions(const std::vector<tir::BufferRegion>& a, const std::vector<tir::BufferRegion>& b) {
    if (a.size() != b.size()) return Fail("read/write region counts differ");
    for (size_t i = 0; i < a.size(); ++i) {
      if (!Use(a[i].buffer.get(), b[i].buffer.get(), "buffers in regions")) return false;
      if (a[i].region.size() != b[i].region.size()) return Fail("region ranks differ");
      for (size_t j = 0; j < a[i].region.size(); ++j) {
        if (!PrimEq(a[i].region[j].min, b[i].region[j].min) || !PrimEq(a[i].region[j].extent, b[i].region[j].extent)) {
          return false;
        }
      }
    }
    return true;
  }

  bool StmtEq(const Stmt& a, const Stmt& b) {
    if (a.same_as(b)) return true;
    if (!a.defined() || !b.defined()) return Fail("statement present on one side only");
    if (a->kind() != b->kind()) {
      return Fail(absl::StrCat("statements differ: ", NodeKindName(a->kind()), " vs ", NodeKindName(b->kind())));
    }
    switch (a->kind()) {
      case NodeKind::kBufferStore: {
        const auto *x = a.as<tir::BufferStoreNode>(), *y = b.as<tir::BufferStoreNode>();
        return Use(x->buffer.get(), y->buffer.get(),
                   absl::StrCat("buffers stored to (", x->buffer->name, " vs ", y->buffer->name, ")")) &&
               PrimList(x->indices, y->indices) && PrimEq(x->value, y->value);
      }
      case NodeKind::kFor: {
        const auto *x = a.as<tir::ForNode>(), *y = b.as<tir::ForNode>();
        if (x->for_kind != y->for_kind) return Fail("loop kinds differ");
        if (x->annotations != y->annotations) return Fail("loop annotations differ");
        return PrimEq(x->min, y->min) && PrimEq(x->extent, y->extent) && DefineTirVar(x->loop_var, y->loop_var) &&
               StmtEq(x->body, y->body);
      }
      case NodeKind::kSeqStmt: {
        const auto *x = a.as<tir::SeqStmtNode>(), *y = b.as<tir::SeqStmtNode>();
        if (x->seq.size() != y->seq.size()) return Fail("statement sequence lengths differ");
        for (size_t i = 0; i < x->seq.size(); ++i) {
          if (!StmtEq(x->seq[i], y->seq[i])) return false;
        }
        return true;
      }
      case NodeKind::kIfThenElse: {
        const auto *x = a.as<tir::IfThenElseNode>(), *y = b.as<tir::IfThenElseNode>();
        return PrimEq(x->condition, y->condition) && StmtEq(x->then_case, y->then_case) &&
               StmtEq(x->else_case, y->else_case);
      }
      case NodeKind::kEvaluate: return PrimEq(a.as<tir::EvaluateNode>()->value, b.as<tir::EvaluateNode>()->value);
      case NodeKind::kBlockRealize: {
        const auto *x = a.as<tir::BlockRealizeNode>(), *y = b.as<tir::BlockRealizeNode>();
        return PrimList(x->iter_values, y->iter_values) && PrimEq(x->predicate, y->predicate) &&
               StmtEq(x->block, y->block);
      }
      case NodeKind::kBlock: {
        const auto *x = a.as<tir::BlockNode>(), *y = b.as<tir::BlockNode>();
        path_.push_back(absl::StrCat("block ", x->name));
        if (x->name != y->name) return Fail(absl::StrCat("block names differ: ", x->name, " vs ", y->name));
        if (x->iter_vars.size() != y->iter_vars.size()) return Fail("iteration variable counts differ");
        for (size_t i = 0; i < x->iter_vars.size(); ++i) {
          const tir::IterVar &u = x->iter_vars[i], &v = y->iter_vars[i];
          if (u.kind != v.kind) return Fail("iteration kinds differ (spatial vs reduce)");
          if (!PrimEq(u.dom.min, v.dom.min) || !PrimEq(u.dom.extent, v.dom.extent) || !DefineTirVar(u.var, v.var)) {
            return false;
          }
        }
        if (x->alloc_buffers.size() != y->alloc_buffers.size()) return Fail("alloc_buffer counts differ");
        for (size_t i = 0; i < x->alloc_buffers.size(); ++i) {
          if (!DefineBuffer(x->alloc_buffers[i], y->alloc_buffers[i])) return false;
        }
        if (x->annotations != y->annotations) return Fail("block annotations differ");
        if (!Regions(x->reads, y->reads) || !Regions(x->writes, y->writes)) return false;
        if (!StmtEq(x->init, y->init) || !StmtEq(x->body, y->body)) return false;
        path_.pop_back();
        return true;
      }
      case NodeKind::kAllocate: {
        const auto *x = a.as<tir::AllocateNode>(), *y = b.as<tir::AllocateNode>();
        return DefineBuffer(x->buffer, y->buffer) && StmtEq(x->body, y->body);
      }
        MLC_CASES_NOT_STMT
        return Fail("unexpected statement kind");
    }
  }

  // ---- Graph level.
  bool SInfo(const StructInfo& a, const StructInfo& b) {
    if (a.same_as(b)) return true;
    if (!a.defined() || !b.defined() || a->kind() != b->kind()) return false;
    switch (a->kind()) {
      case NodeKind::kObjectStructInfo: return true;
      case NodeKind::kPrimStructInfo:
        return a.as<relax::PrimStructInfoNode>()->dtype == b.as<relax::PrimStructInfoNode>()->dtype;
      case NodeKind::kShapeStructInfo: {
        const auto *x = a.as<relax::ShapeStructInfoNode>(), *y = b.as<relax::ShapeStructInfoNode>();
        if (x->ndim != y->ndim || x->values.has_value() != y->values.has_value()) return false;
        return !x->values || PrimList(*x->values, *y->values);
      }
      case NodeKind::kTensorStructInfo: {
        const auto *x = a.as<relax::TensorStructInfoNode>(), *y = b.as<relax::TensorStructInfoNode>();
        if (x->dtype != y->dtype || x->ndim != y->ndim || x->shape != y->shape) return false;
        if (x->IsSymbolic() != y->IsSymbolic()) return false;
        for (size_t i = 0; x->IsSymbolic() && i < x->symbolic_dims->size(); ++i) {
          if (!PrimEq((*x->symbolic_dims)[i], (*y->symbolic_dims)[i])) return false;
        }
        return true;
      }
      case NodeKind::kTupleStructInfo: {
        const auto &x = a.as<relax::TupleStructInfoNode>()->fields, &y = b.as<relax::TupleStructInfoNode>()->fields;
        if (x.size() != y.size()) return false;
        for (size_t i = 0; i < x.size(); ++i) {
          if (!SInfo(x[i], y[i])) return false;
        }
        return true;
      }
      case NodeKind::kFuncStructInfo: {
        const auto *x = a.as<relax::FuncStructInfoNode>(), *y = b.as<relax::FuncStructInfoNode>();
        if (x->params.size() != y->params.size() || !SInfo(x->ret, y->ret)) return false;
        for (size_t i = 0; i < x->params.size(); ++i) {
          if (!SInfo(x->params[i], y->params[i])) return false;
        }
        return true;
      }
        MLC_CASES_NOT_STRUCT_INFO
        return false;
    }
  }

  bool ExprList(const std::vector<relax::Expr>& a, const std::vector<relax::Expr>& b) {
    if (a.size() != b.size()) return Fail("argument counts differ");
    for (size_t i = 0; i < a.size(); ++i) {
      if (!ExprEq(a[i], b[i])) return false;
    }
    return true;
  }

  bool ExprEq(const relax::Expr& a, const relax::Expr& b) {
    if (a.same_as(b)) return true;
    if (!a.defined() || !b.defined()) return Fail("expression present on one side only");
    if (a->kind() != b->kind()) {
      return Fail(absl::StrCat("expressions differ: ", PrintExpr(a), " vs ", PrintExpr(b)));
    }
    switch (a->kind()) {
      case NodeKind::kVar:
      case NodeKind::kDataflowVar:
        return Use(a.get(), b.get(),
                   absl::StrCat("variables (", a.as<relax::VarNode>()->name_hint, " vs ",
                                b.as<relax::VarNode>()->name_hint, ")"));
      case NodeKind::kConstant: {
        const TensorData &x = a.as<relax::ConstantNode>()->data, &y = b.as<relax::ConstantNode>()->data;
        return (x.dtype() == y.dtype() && x.shape() == y.shape() && x.bytes() == y.bytes()) || Fail("constants differ");
      }
      case NodeKind::kTuple: return ExprList(a.as<relax::TupleNode>()->fields, b.as<relax::TupleNode>()->fields);
      case NodeKind::kTupleGetItem: {
        const auto *x = a.as<relax::TupleGetItemNode>(), *y = b.as<relax::TupleGetItemNode>();
        return (x->index == y->index || Fail("tuple indices differ")) && ExprEq(x->tuple, y->tuple);
      }
      case NodeKind::kShapeExpr:
        return PrimList(a.as<relax::ShapeExprNode>()->values, b.as<relax::ShapeExprNode>()->values) ||
               Fail("shapes differ");
      case NodeKind::kGlobalVar:
        return a.as<relax::GlobalVarNode>()->name == b.as<relax::GlobalVarNode>()->name ||
               Fail(absl::StrCat("callees differ: @", a.as<relax::GlobalVarNode>()->name, " vs @",
                                 b.as<relax::GlobalVarNode>()->name));
      case NodeKind::kExternFunc:
        return a.as<relax::ExternFuncNode>()->global_symbol == b.as<relax::ExternFuncNode>()->global_symbol ||
               Fail("extern functions differ");
      case NodeKind::kOp:
        return Fail(
            absl::StrCat("operators differ: ", a.as<relax::OpNode>()->name(), " vs ", b.as<relax::OpNode>()->name()));
      case NodeKind::kCall: {
        const auto *x = a.as<relax::CallNode>(), *y = b.as<relax::CallNode>();
        if (!ExprEq(x->op, y->op) || !ExprList(x->args, y->args)) return false;
        if (x->attrs != y->attrs) return Fail(absl::StrCat("call attributes differ in ", PrintExpr(a)));
        if (x->sinfo_args.size() != y->sinfo_args.size()) return Fail("call struct info arguments differ");
        for (size_t i = 0; i < x->sinfo_args.size(); ++i) {
          if (!SInfo(x->sinfo_args[i], y->sinfo_args[i]))
            return Fail(absl::StrCat("out_sinfo differs in ", PrintExpr(a)));
        }
        return true;
      }
      case NodeKind::kSeqExpr: {
        const auto *x = a.as<relax::SeqExprNode>(), *y = b.as<relax::SeqExprNode>();
        if (x->blocks.size() != y->blocks.size()) return Fail("binding block counts differ");
        for (size_t i = 0; i < x->blocks.size(); ++i) {
          const relax::BindingBlock &u = x->blocks[i], &v = y->blocks[i];
          if (u->is_dataflow != v->is_dataflow) return Fail("dataflow and plain blocks differ");
          if (u->bindings.size() != v->bindings.size())
            return Fail(absl::StrCat("block ", i, ": binding counts differ"));
          for (size_t j = 0; j < u->bindings.size(); ++j) {
            path_.push_back(absl::StrCat("binding ", u->bindings[j]->var->name_hint));
            if (!ExprEq(u->bindings[j]->value, v->bindings[j]->value)) return false;
            if (!DefineVar(u->bindings[j]->var, v->bindings[j]->var)) return false;
            path_.pop_back();
          }
        }
        return ExprEq(x->body, y->body);
      }
      case NodeKind::kIf: {
        const auto *x = a.as<relax::IfNode>(), *y = b.as<relax::IfNode>();
        return ExprEq(x->cond, y->cond) && ExprEq(x->true_branch, y->true_branch) &&
               ExprEq(x->false_branch, y->false_branch);
      }
        MLC_CASES_NOT_EXPR
        return Fail("unexpected expression kind");
    }
  }

  std::unordered_map<const Object*, const Object*> map_;
  std::vector<std::string> path_;
  std::string message_;
};

class Hasher {
 public:
  size_t Module(const IRModule& m) {
    for (const auto& [name, f] : m.functions()) {
      Mix(std::hash<std::string>()(name));
      Func(f);
    }
    return h_;
  }

  size_t Func(const BaseFunc& f) {
    Mix(static_cast<size_t>(f->kind()));
    Mix(AttrsHash(StructuralAttrs(f->attrs)));
    if (const auto* p = f.as<tir::PrimFuncNode>()) {
      for (const tir::Var& v : tir::ShapeVarsOf(p)) index_[v.get()] = next_++;
      for (const tir::Buffer& b : p->params) DefineBuffer(b);
      StmtH(p->body);
    } else {
      const auto* fn = f.as<relax::FunctionNode>();
      for (const tir::Var& v : fn->ShapeVars()) index_[v.get()] = next_++;
      for (const relax::Var& v : fn->params) Define(v.get(), v->struct_info());
      SInfoH(fn->ret_struct_info);
      ExprH(fn->body);
    }
    return h_;
  }

 private:
  void Mix(size_t v) { h_ = h_ * 1000003u ^ (v + 0x9e3779b97f4a7c15ull + (h_ << 6) + (h_ >> 2)); }

  // std::hash of strings and integers (unlike absl::Hash, which is seeded per process), so a
  // hash is the same in every process: the tuning database keys workloads by it.
  static size_t AttrsHash(const Attrs& attrs) {
    size_t h = attrs.size();
    for (const auto& [k, v] : attrs) {
      h = h * 1000003u ^ std::hash<std::string>()(k);
      h = h * 1000003u ^ v.storage().index();
      // The printed form is a stable, type-aware rendering of every value kind.
      h = h * 1000003u ^ std::hash<std::string>()(PrintAttr(v));
    }
    return h;
  }
  static std::string PrintAttr(const AttrValue& v) {
    const AttrValue::Storage& s = v.storage();
    if (const bool* b = std::get_if<bool>(&s)) return *b ? "T" : "F";
    if (const int64_t* i = std::get_if<int64_t>(&s)) return absl::StrCat(*i);
    if (const double* d = std::get_if<double>(&s)) return FormatPythonFloat(*d);
    if (const std::string* str = std::get_if<std::string>(&s)) return *str;
    if (const auto* l = std::get_if<std::vector<int64_t>>(&s)) return absl::StrJoin(*l, ",");
    if (const auto* l = std::get_if<std::vector<double>>(&s)) return absl::StrJoin(*l, ",");
    if (const DataType* dt = std::get_if<DataType>(&s)) return dt->ToString();
    return "";
  }

  void Define(const Object* obj, const StructInfo& sinfo) {
    index_[obj] = next_++;
    SInfoH(sinfo);
  }
  void DefineBuffer(const tir::Buffer& b) {
    index_[b.get()] = next_++;
    Mix(std::hash<std::string>()(b->dtype.ToString()));
    for (const PrimExpr& s : b->shape) PrimH(s);
  }
  void UseH(const Object* obj) {
    auto it = index_.find(obj);
    Mix(it == index_.end() ? std::hash<const void*>()(obj) : it->second * 31 + 7);
  }

  void PrimH(const PrimExpr& e) {
    if (!e.defined()) return Mix(0);
    Mix(static_cast<size_t>(e->kind()) * 131 + e->dtype.code() * 7 + e->dtype.bits());
    switch (e->kind()) {
      case NodeKind::kIntImm: return Mix(std::hash<int64_t>()(e.as<tir::IntImmNode>()->value));
      case NodeKind::kFloatImm: return Mix(std::hash<double>()(e.as<tir::FloatImmNode>()->value));
      case NodeKind::kStringImm: return Mix(std::hash<std::string>()(e.as<tir::StringImmNode>()->value));
      case NodeKind::kTirVar: return UseH(e.get());
      case NodeKind::kNot: return PrimH(e.as<tir::NotNode>()->a);
      case NodeKind::kSelect: {
        const auto* s = e.as<tir::SelectNode>();
        PrimH(s->condition);
        PrimH(s->true_value);
        return PrimH(s->false_value);
      }
      case NodeKind::kCast: return PrimH(e.as<tir::CastNode>()->value);
      case NodeKind::kBufferLoad: {
        const auto* l = e.as<tir::BufferLoadNode>();
        UseH(l->buffer.get());
        for (const PrimExpr& i : l->indices) PrimH(i);
        return;
      }
      case NodeKind::kTirCall: {
        const auto* c = e.as<tir::TirCallNode>();
        Mix(std::hash<std::string>()(c->name));
        for (const PrimExpr& a : c->args) PrimH(a);
        return;
      }
        MLC_BINARY_CASES {
          const auto* bin = static_cast<const tir::BinaryNode*>(e.get());
          PrimH(bin->a);
          return PrimH(bin->b);
        }
        MLC_CASES_NOT_PRIM_EXPR
        return;
    }
  }

  void StmtH(const Stmt& s) {
    if (!s.defined()) return Mix(1);
    Mix(static_cast<size_t>(s->kind()) * 257);
    switch (s->kind()) {
      case NodeKind::kBufferStore: {
        const auto* st = s.as<tir::BufferStoreNode>();
        UseH(st->buffer.get());
        for (const PrimExpr& i : st->indices) PrimH(i);
        return PrimH(st->value);
      }
      case NodeKind::kFor: {
        const auto* f = s.as<tir::ForNode>();
        Mix(static_cast<size_t>(f->for_kind));
        Mix(f->annotations.size());
        PrimH(f->min);
        PrimH(f->extent);
        index_[f->loop_var.get()] = next_++;
        return StmtH(f->body);
      }
      case NodeKind::kSeqStmt:
        for (const Stmt& inner : s.as<tir::SeqStmtNode>()->seq) StmtH(inner);
        return;
      case NodeKind::kIfThenElse: {
        const auto* ite = s.as<tir::IfThenElseNode>();
        PrimH(ite->condition);
        StmtH(ite->then_case);
        return StmtH(ite->else_case);
      }
      case NodeKind::kEvaluate: return PrimH(s.as<tir::EvaluateNode>()->value);
      case NodeKind::kBlockRealize: {
        const auto* r = s.as<tir::BlockRealizeNode>();
        for (const PrimExpr& v : r->iter_values) PrimH(v);
        PrimH(r->predicate);
        return StmtH(r->block);
      }
      case NodeKind::kBlock: {
        const auto* b = s.as<tir::BlockNode>();
        Mix(std::hash<std::string>()(b->name));
        for (const tir::IterVar& iv : b->iter_vars) {
          Mix(static_cast<size_t>(iv.kind));
          PrimH(iv.dom.min);
          PrimH(iv.dom.extent);
          index_[iv.var.get()] = next_++;
        }
        for (const tir::Buffer& buf : b->alloc_buffers) DefineBuffer(buf);
        Mix(AttrsHash(b->annotations));
        for (const auto* regions : {&b->reads, &b->writes}) {
          Mix(regions->size());
          for (const tir::BufferRegion& r : *regions) {
            UseH(r.buffer.get());
            for (const tir::Range& range : r.region) {
              PrimH(range.min);
              PrimH(range.extent);
            }
          }
        }
        StmtH(b->init);
        return StmtH(b->body);
      }
      case NodeKind::kAllocate: {
        const auto* a = s.as<tir::AllocateNode>();
        DefineBuffer(a->buffer);
        return StmtH(a->body);
      }
        MLC_CASES_NOT_STMT
        return;
    }
  }

  void SInfoH(const StructInfo& s) {
    if (!s.defined()) return Mix(2);
    Mix(static_cast<size_t>(s->kind()) * 521);
    switch (s->kind()) {
      case NodeKind::kObjectStructInfo: return;
      case NodeKind::kPrimStructInfo: return Mix(s.as<relax::PrimStructInfoNode>()->dtype.bits());
      case NodeKind::kShapeStructInfo: {
        const auto* x = s.as<relax::ShapeStructInfoNode>();
        Mix(x->ndim + 3);
        if (x->values) {
          for (const PrimExpr& v : *x->values) PrimH(v);
        }
        return;
      }
      case NodeKind::kTensorStructInfo: {
        const auto* t = s.as<relax::TensorStructInfoNode>();
        Mix(t->dtype.code() * 1031 + t->dtype.bits());
        Mix(t->ndim + 3);
        if (t->shape) {
          for (int64_t v : *t->shape) Mix(v);
        }
        if (t->symbolic_dims) {
          for (const PrimExpr& d : *t->symbolic_dims) PrimH(d);
        }
        return;
      }
      case NodeKind::kTupleStructInfo:
        for (const StructInfo& f : s.as<relax::TupleStructInfoNode>()->fields) SInfoH(f);
        return;
      case NodeKind::kFuncStructInfo: {
        const auto* f = s.as<relax::FuncStructInfoNode>();
        for (const StructInfo& p : f->params) SInfoH(p);
        return SInfoH(f->ret);
      }
        MLC_CASES_NOT_STRUCT_INFO
        return;
    }
  }

  void ExprH(const relax::Expr& e) {
    if (!e.defined()) return Mix(3);
    Mix(static_cast<size_t>(e->kind()) * 4099);
    switch (e->kind()) {
      case NodeKind::kVar:
      case NodeKind::kDataflowVar: return UseH(e.get());
      case NodeKind::kConstant: {
        const TensorData& d = e.as<relax::ConstantNode>()->data;
        Mix(std::hash<std::string>()(d.bytes()));
        for (int64_t v : d.shape()) Mix(v);
        return;
      }
      case NodeKind::kTuple:
        for (const relax::Expr& f : e.as<relax::TupleNode>()->fields) ExprH(f);
        return;
      case NodeKind::kTupleGetItem:
        Mix(e.as<relax::TupleGetItemNode>()->index);
        return ExprH(e.as<relax::TupleGetItemNode>()->tuple);
      case NodeKind::kShapeExpr:
        for (const PrimExpr& v : e.as<relax::ShapeExprNode>()->values) PrimH(v);
        return;
      case NodeKind::kGlobalVar: return Mix(std::hash<std::string>()(e.as<relax::GlobalVarNode>()->name));
      case NodeKind::kExternFunc: return Mix(std::hash<std::string>()(e.as<relax::ExternFuncNode>()->global_symbol));
      case NodeKind::kOp: return Mix(std::hash<std::string>()(e.as<relax::OpNode>()->name()));
      case NodeKind::kCall: {
        const auto* c = e.as<relax::CallNode>();
        ExprH(c->op);
        for (const relax::Expr& a : c->args) ExprH(a);
        Mix(AttrsHash(c->attrs));
        for (const StructInfo& s : c->sinfo_args) SInfoH(s);
        return;
      }
      case NodeKind::kSeqExpr: {
        const auto* seq = e.as<relax::SeqExprNode>();
        for (const relax::BindingBlock& b : seq->blocks) {
          Mix(b->is_dataflow ? 11 : 13);
          for (const relax::VarBinding& vb : b->bindings) {
            ExprH(vb->value);
            Mix(vb->var->kind() == NodeKind::kDataflowVar ? 17 : 19);
            Define(vb->var.get(), vb->var->struct_info());
          }
        }
        return ExprH(seq->body);
      }
      case NodeKind::kIf: {
        const auto* branch = e.as<relax::IfNode>();
        ExprH(branch->cond);
        ExprH(branch->true_branch);
        return ExprH(branch->false_branch);
      }
        MLC_CASES_NOT_EXPR
        return;
    }
  }

  std::unordered_map<const Object*, size_t> index_;
  size_t next_ = 1;
  size_t h_ = 0x12345;
};

}  // namespace

bool StructuralEqual(const IRModule& lhs, const IRModule& rhs) { return Equal().Module(lhs, rhs); }
bool StructuralEqual(const BaseFunc& lhs, const BaseFunc& rhs) { return Equal().Func(lhs, rhs); }

absl::Status CheckStructuralEqual(const IRModule& lhs, const IRModule& rhs) {
  Equal eq;
  if (eq.Module(lhs, rhs)) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat("modules differ at ", eq.Report()));
}

absl::Status CheckStructuralEqual(const BaseFunc& lhs, const BaseFunc& rhs) {
  Equal eq;
  if (eq.Func(lhs, rhs)) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat("functions differ at ", eq.Report()));
}

size_t StructuralHash(const IRModule& mod) { return Hasher().Module(mod); }
size_t StructuralHash(const BaseFunc& func) { return Hasher().Func(func); }

}  // namespace mlc
