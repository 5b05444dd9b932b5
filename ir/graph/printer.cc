/*! \file printer.cc
 *  \brief The TVMScript printer for both IR levels.
 *
 *  Layout rules follow what TVM prints in the seeds: nested serial loops print as one
 *  T.grid, block iteration variables bound 1:1 to loop variables print as T.axis.remap,
 *  float32 alloc_buffers omit the dtype, int64 immediates print as T.int64(n), functions
 *  without a "global_symbol" attribute print as private, and bindings whose struct info is
 *  spelled out by the call (call_tir's out_sinfo) carry no annotation.
 */
#include "ir/graph/printer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <unordered_map>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/graph/op.h"
#include "ir/tir/shape_expr.h"

namespace mlc {
namespace {

using relax::Expr;
using relax::StructInfo;
using tir::PrimExpr;
using tir::Stmt;

std::string Indent(int level) { return std::string(4 * level, ' '); }

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/*! \brief Gives each distinct object (var, buffer) a distinct printable name within a scope. */
class NameTable {
 public:
  /*! \brief Defines a name for `obj` from `hint`, suffixing _1, _2... if taken. */
  const std::string& Define(const void* obj, const std::string& hint) {
    auto it = names_.find(obj);
    if (it != names_.end()) return it->second;
    std::string base = hint.empty() ? "v" : hint;
    std::string name = base;
    for (int i = 1; used_.count(name); ++i) name = absl::StrCat(base, "_", i);
    used_.insert(name);
    return names_[obj] = name;
  }
  /*! \brief The name of `obj`; defines one from `hint` if it was never defined (a free var). */
  const std::string& Get(const void* obj, const std::string& hint) { return Define(obj, hint); }
  void Reserve(const std::string& name) { used_.insert(name); }
  /*! \brief Ends the scope of `obj`: its name may be given to a later object. */
  void Release(const void* obj) {
    auto it = names_.find(obj);
    if (it == names_.end()) return;
    used_.erase(it->second);
    names_.erase(it);
  }

 private:
  std::unordered_map<const void*, std::string> names_;
  std::set<std::string> used_;
};

// ---------------------------------------------------------------------------------------------
// Attribute values and struct info.

// A float as Python source: repr() for finite values, float("-inf") for the others (Python's
// repr "-inf" is not an expression the parser could read back).
std::string FloatLiteral(double d) {
  return std::isfinite(d) ? FormatPythonFloat(d) : absl::StrCat("float(\"", FormatPythonFloat(d), "\")");
}

std::string AttrToScript(const AttrValue& v, bool tir_style) {
  const AttrValue::Storage& s = v.storage();
  if (std::holds_alternative<std::monostate>(s)) return "None";
  if (const bool* b = std::get_if<bool>(&s)) {
    std::string text = *b ? "True" : "False";
    return tir_style ? absl::StrCat("T.bool(", text, ")") : text;
  }
  if (const int64_t* i = std::get_if<int64_t>(&s)) return absl::StrCat(*i);
  if (const double* d = std::get_if<double>(&s)) return FloatLiteral(*d);
  if (const std::string* str = std::get_if<std::string>(&s)) return Quote(*str);
  if (const auto* list = std::get_if<std::vector<int64_t>>(&s))
    return absl::StrCat("[", absl::StrJoin(*list, ", "), "]");
  if (const auto* list = std::get_if<std::vector<double>>(&s)) {
    std::vector<std::string> parts;
    for (double d : *list) parts.push_back(FloatLiteral(d));
    return absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
  }
  if (const DataType* dt = std::get_if<DataType>(&s)) return Quote(dt->ToString());
  return "None";
}

std::string AttrDictToScript(const Attrs& attrs, bool tir_style) {
  std::vector<std::string> parts;
  for (const auto& [key, value] : attrs)
    parts.push_back(absl::StrCat(Quote(key), ": ", AttrToScript(value, tir_style)));
  return absl::StrCat("{", absl::StrJoin(parts, ", "), "}");
}

std::string ShapeTuple(const std::vector<int64_t>& shape) {
  if (shape.size() == 1) return absl::StrCat("(", shape[0], ",)");
  return absl::StrCat("(", absl::StrJoin(shape, ", "), ")");
}

/*! \brief Symbolic dimensions print as expressions of the function's shape variables; in a
 *  signature they are quoted (`R.Tensor(("n", 784))`), as the variables are defined there. */
enum class DimStyle { kBare, kQuoted };

/*! \brief "n, 4" (or "\"n\", 4" quoted). */
std::string DimList(const std::vector<tir::PrimExpr>& dims, DimStyle style) {
  std::vector<std::string> parts;
  for (const tir::PrimExpr& d : dims) {
    std::string text = tir::ShapeExprToString(d);
    parts.push_back(style == DimStyle::kQuoted && !tir::AsConstInt(d) ? Quote(text) : text);
  }
  return absl::StrJoin(parts, ", ");
}

std::string DimsTuple(const relax::TensorStructInfoNode* t, DimStyle style) {
  if (!t->IsSymbolic()) return ShapeTuple(*t->shape);
  if (t->symbolic_dims->size() == 1) return absl::StrCat("(", DimList(*t->symbolic_dims, style), ",)");
  return absl::StrCat("(", DimList(*t->symbolic_dims, style), ")");
}

std::string StructInfoToScript(const StructInfo& sinfo, DimStyle style = DimStyle::kBare) {
  if (!sinfo.defined()) return "R.Object";
  switch (sinfo->kind()) {
    case NodeKind::kObjectStructInfo: return "R.Object";
    case NodeKind::kPrimStructInfo:
      return absl::StrCat("R.Prim(", Quote(sinfo.as<relax::PrimStructInfoNode>()->dtype.ToString()), ")");
    case NodeKind::kShapeStructInfo: {
      const auto* s = sinfo.as<relax::ShapeStructInfoNode>();
      if (s->values) return absl::StrCat("R.Shape([", DimList(*s->values, style), "])");
      if (s->ndim >= 0) return absl::StrCat("R.Shape(ndim=", s->ndim, ")");
      return "R.Shape";
    }
    case NodeKind::kTensorStructInfo: {
      const auto* t = sinfo.as<relax::TensorStructInfoNode>();
      std::vector<std::string> parts;
      if (t->HasKnownShape()) parts.push_back(DimsTuple(t, style));
      if (!t->dtype.is_void()) parts.push_back(absl::StrCat("dtype=", Quote(t->dtype.ToString())));
      if (!t->HasKnownShape() && t->ndim >= 0) parts.push_back(absl::StrCat("ndim=", t->ndim));
      if (parts.empty()) return "R.Tensor";
      return absl::StrCat("R.Tensor(", absl::StrJoin(parts, ", "), ")");
    }
    case NodeKind::kTupleStructInfo: {
      std::vector<std::string> parts;
      for (const StructInfo& f : sinfo.as<relax::TupleStructInfoNode>()->fields)
        parts.push_back(StructInfoToScript(f, style));
      return absl::StrCat("R.Tuple(", absl::StrJoin(parts, ", "), ")");
    }
    case NodeKind::kFuncStructInfo: {
      const auto* f = sinfo.as<relax::FuncStructInfoNode>();
      std::vector<std::string> parts;
      for (const StructInfo& p : f->params) parts.push_back(StructInfoToScript(p));
      return absl::StrCat("R.Callable((", absl::StrJoin(parts, ", "), "), ", StructInfoToScript(f->ret), ")");
    }
      MLC_CASES_NOT_STRUCT_INFO
      return "R.Object";
  }
}

// ---------------------------------------------------------------------------------------------
// Loop level.

/*! \brief Python operator precedence, lowest first. */
enum Prec : int { kPrecOr = 1, kPrecAnd, kPrecNot, kPrecCmp, kPrecAdd = 6, kPrecMul, kPrecUnary, kPrecAtom };

class TirPrinter {
 public:
  explicit TirPrinter(NameTable* names) : names_(names) {}

  std::string ImmToScript(const PrimExpr& e) {
    if (const auto* imm = e.as<tir::IntImmNode>()) {
      if (imm->dtype == DataType::Int32()) return absl::StrCat(imm->value);
      if (imm->dtype.is_bool()) return absl::StrCat("T.bool(", imm->value ? "True" : "False", ")");
      return absl::StrCat("T.", imm->dtype.ToString(), "(", imm->value, ")");
    }
    const auto* f = e.as<tir::FloatImmNode>();
    std::string text;
    if (std::isinf(f->value)) {
      text = f->value > 0 ? "\"inf\"" : "\"-inf\"";
    } else if (std::isnan(f->value)) {
      text = "\"nan\"";
    } else {
      text = FormatPythonFloat(f->value);
    }
    return absl::StrCat("T.", f->dtype.ToString(), "(", text, ")");
  }

  std::string Expr(const PrimExpr& e) {
    int prec;
    return Expr(e, &prec);
  }

  std::string Expr(const PrimExpr& e, int* prec) {
    *prec = kPrecAtom;
    switch (e->kind()) {
      case NodeKind::kIntImm: {
        const auto* imm = e.as<tir::IntImmNode>();
        if (imm->dtype == DataType::Int32() && imm->value < 0) *prec = kPrecUnary;
        return ImmToScript(e);
      }
      case NodeKind::kFloatImm: return ImmToScript(e);
      case NodeKind::kStringImm: return Quote(e.as<tir::StringImmNode>()->value);
      case NodeKind::kTirVar: {
        const auto* v = e.as<tir::TirVarNode>();
        return names_->Get(v, v->name);
      }
      case NodeKind::kAdd: return Infix(e, "+", kPrecAdd, prec);
      case NodeKind::kSub: return Infix(e, "-", kPrecAdd, prec);
      case NodeKind::kMul: return Infix(e, "*", kPrecMul, prec);
      case NodeKind::kDiv: return Infix(e, "/", kPrecMul, prec);
      case NodeKind::kFloorDiv: return Infix(e, "//", kPrecMul, prec);
      case NodeKind::kFloorMod: return Infix(e, "%", kPrecMul, prec);
      case NodeKind::kMod: return Func("T.truncmod", e);
      case NodeKind::kMin: return Func("T.min", e);
      case NodeKind::kMax: return Func("T.max", e);
      case NodeKind::kEQ: return Infix(e, "==", kPrecCmp, prec);
      case NodeKind::kNE: return Infix(e, "!=", kPrecCmp, prec);
      case NodeKind::kLT: return Infix(e, "<", kPrecCmp, prec);
      case NodeKind::kLE: return Infix(e, "<=", kPrecCmp, prec);
      case NodeKind::kGT: return Infix(e, ">", kPrecCmp, prec);
      case NodeKind::kGE: return Infix(e, ">=", kPrecCmp, prec);
      case NodeKind::kAnd: return Infix(e, "and", kPrecAnd, prec);
      case NodeKind::kOr: return Infix(e, "or", kPrecOr, prec);
      case NodeKind::kNot: {
        *prec = kPrecNot;
        int inner;
        std::string a = Expr(e.as<tir::NotNode>()->a, &inner);
        return absl::StrCat("not ", inner < kPrecNot ? absl::StrCat("(", a, ")") : a);
      }
      case NodeKind::kSelect: {
        const auto* s = e.as<tir::SelectNode>();
        return absl::StrCat("T.Select(", Expr(s->condition), ", ", Expr(s->true_value), ", ", Expr(s->false_value),
                            ")");
      }
      case NodeKind::kCast: {
        const auto* c = e.as<tir::CastNode>();
        return absl::StrCat("T.Cast(", Quote(c->dtype.ToString()), ", ", Expr(c->value), ")");
      }
      case NodeKind::kBufferLoad: {
        const auto* load = e.as<tir::BufferLoadNode>();
        return absl::StrCat(BufferName(load->buffer), "[", Indices(load->indices), "]");
      }
      case NodeKind::kTirCall: {
        const auto* call = e.as<tir::TirCallNode>();
        std::vector<std::string> args;
        for (const PrimExpr& a : call->args) args.push_back(Expr(a));
        return absl::StrCat("T.", call->name, "(", absl::StrJoin(args, ", "), ")");
      }
        MLC_CASES_NOT_PRIM_EXPR
        return "<?>";
    }
  }

  std::string BufferName(const tir::Buffer& b) { return names_->Get(b.get(), b->name); }

  /*! \brief The indices of a load or store; `()` for a 0-d buffer's one element (`c[()]`, which
   *  the parser reads back; `c[]` is no Python). */
  std::string Indices(const std::vector<PrimExpr>& indices) {
    if (indices.empty()) return "()";
    std::vector<std::string> parts;
    for (const PrimExpr& i : indices) parts.push_back(Expr(i));
    return absl::StrJoin(parts, ", ");
  }

  std::string ShapeToScript(const std::vector<PrimExpr>& shape) {
    std::vector<std::string> parts;
    for (const PrimExpr& s : shape) parts.push_back(Expr(s));
    if (parts.size() == 1) return absl::StrCat("(", parts[0], ",)");
    return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
  }

  std::string BufferDecl(const tir::Buffer& b) {
    return absl::StrCat("T.Buffer(", ShapeToScript(b->shape), ", ", Quote(b->dtype.ToString()), ")");
  }

  std::string AllocBuffer(const tir::Buffer& b, int indent) {
    std::string name = names_->Define(b.get(), b->name);
    std::string dtype = b->dtype == DataType::Float32() ? "" : absl::StrCat(", ", Quote(b->dtype.ToString()));
    return absl::StrCat(Indent(indent), name, " = T.alloc_buffer(", ShapeToScript(b->shape), dtype, ")\n");
  }

  std::string Region(const tir::BufferRegion& r) {
    std::vector<std::string> parts;
    for (const tir::Range& range : r.region) {
      const int64_t* extent = tir::AsConstInt(range.extent);
      if (extent != nullptr && *extent == 1) {
        parts.push_back(Expr(range.min));
      } else {
        const int64_t* min = tir::AsConstInt(range.min);
        std::string end = (min != nullptr && *min == 0)
                              ? Expr(range.extent)
                              : Expr(tir::MakeBinary(NodeKind::kAdd, range.min, range.extent));
        parts.push_back(absl::StrCat(Expr(range.min), ":", end));
      }
    }
    // A 0-d buffer's region is its one element, `c[()]`, as its loads print.
    return absl::StrCat(BufferName(r.buffer), "[", parts.empty() ? std::string("()") : absl::StrJoin(parts, ", "), "]");
  }

  void PrintStmt(const Stmt& s, int indent, std::string* out) {
    switch (s->kind()) {
      case NodeKind::kBufferStore: {
        const auto* store = s.as<tir::BufferStoreNode>();
        absl::StrAppend(out, Indent(indent), BufferName(store->buffer), "[", Indices(store->indices),
                        "] = ", Expr(store->value), "\n");
        return;
      }
      case NodeKind::kFor: PrintFor(s.as<tir::ForNode>(), indent, out); return;
      case NodeKind::kSeqStmt:
        for (const Stmt& inner : s.as<tir::SeqStmtNode>()->seq) PrintStmt(inner, indent, out);
        return;
      case NodeKind::kIfThenElse: {
        const auto* ite = s.as<tir::IfThenElseNode>();
        absl::StrAppend(out, Indent(indent), "if ", Expr(ite->condition), ":\n");
        PrintStmt(ite->then_case, indent + 1, out);
        if (ite->else_case.defined()) {
          absl::StrAppend(out, Indent(indent), "else:\n");
          PrintStmt(ite->else_case, indent + 1, out);
        }
        return;
      }
      case NodeKind::kEvaluate:
        absl::StrAppend(out, Indent(indent), "T.evaluate(", Expr(s.as<tir::EvaluateNode>()->value), ")\n");
        return;
      case NodeKind::kBlockRealize: PrintBlockRealize(s.as<tir::BlockRealizeNode>(), indent, out); return;
      case NodeKind::kBlock: PrintBlock(s.as<tir::BlockNode>(), nullptr, indent, out); return;
      case NodeKind::kAllocate: {
        const auto* alloc = s.as<tir::AllocateNode>();
        std::string name = names_->Define(alloc->buffer.get(), alloc->buffer->name);
        absl::StrAppend(out, Indent(indent), name, " = T.allocate(", ShapeToScript(alloc->buffer->shape), ", ",
                        Quote(alloc->buffer->dtype.ToString()), ")\n");
        PrintStmt(alloc->body, indent, out);
        return;
      }
        MLC_CASES_NOT_STMT
        absl::StrAppend(out, Indent(indent), "# <unprintable statement>\n");
    }
  }

  void PrintFor(const tir::ForNode* loop, int indent, std::string* out) {
    // Collapse perfectly nested serial loops starting at 0 into one T.grid.
    std::vector<const tir::ForNode*> nest = {loop};
    auto is_grid_loop = [](const tir::ForNode* f) {
      const int64_t* min = tir::AsConstInt(f->min);
      return f->for_kind == tir::ForKind::kSerial && min != nullptr && *min == 0 && f->annotations.empty();
    };
    if (is_grid_loop(loop)) {
      while (true) {
        const auto* inner = nest.back()->body.as<tir::ForNode>();
        if (inner == nullptr || !is_grid_loop(inner)) break;
        nest.push_back(inner);
      }
    }
    std::vector<std::string> vars, extents;
    for (const tir::ForNode* f : nest) {
      vars.push_back(names_->Define(f->loop_var.get(), f->loop_var->name));
      extents.push_back(Expr(f->extent));
    }
    std::string header;
    if (nest.size() > 1) {
      header = absl::StrCat("for ", absl::StrJoin(vars, ", "), " in T.grid(", absl::StrJoin(extents, ", "), "):");
    } else {
      const int64_t* min = tir::AsConstInt(loop->min);
      std::string range_args =
          (min != nullptr && *min == 0)
              ? Expr(loop->extent)
              : absl::StrCat(Expr(loop->min), ", ", Expr(tir::MakeBinary(NodeKind::kAdd, loop->min, loop->extent)));
      std::string fn = loop->for_kind == tir::ForKind::kSerial && loop->annotations.empty()
                           ? "range"
                           : absl::StrCat("T.", tir::ForKindName(loop->for_kind));
      if (!loop->annotations.empty())
        absl::StrAppend(&range_args, ", annotations=", AttrDictToScript(loop->annotations, true));
      header = absl::StrCat("for ", vars[0], " in ", fn, "(", range_args, "):");
    }
    absl::StrAppend(out, Indent(indent), header, "\n");
    PrintStmt(nest.back()->body, indent + 1, out);
    for (const tir::ForNode* f : nest) names_->Release(f->loop_var.get());
  }

  void PrintBlockRealize(const tir::BlockRealizeNode* realize, int indent, std::string* out) {
    PrintBlock(realize->block.get(), realize, indent, out);
  }

  void PrintBlock(const tir::BlockNode* block, const tir::BlockRealizeNode* realize, int indent, std::string* out) {
    absl::StrAppend(out, Indent(indent), "with T.block(", Quote(block->name), "):\n");
    int body_indent = indent + 1;
    // Iteration variables: T.axis.remap when each is bound to a distinct loop variable over
    // the whole loop (and there are at least two), else one T.axis.* line each.
    std::vector<std::string> iter_names;
    for (const tir::IterVar& iv : block->iter_vars) iter_names.push_back(names_->Define(iv.var.get(), iv.var->name));
    bool remap = realize != nullptr && block->iter_vars.size() >= 2;
    std::set<const Object*> seen_loop_vars;
    if (remap) {
      for (size_t i = 0; i < block->iter_vars.size(); ++i) {
        const tir::IterVar& iv = block->iter_vars[i];
        const auto* lv = realize->iter_values[i].as<tir::TirVarNode>();
        const int64_t* min = tir::AsConstInt(iv.dom.min);
        if (lv == nullptr || min == nullptr || *min != 0 || !seen_loop_vars.insert(lv).second ||
            lv->dtype != iv.var->dtype) {
          remap = false;
          break;
        }
      }
    }
    if (remap) {
      std::string kinds, values;
      std::vector<std::string> value_names;
      for (size_t i = 0; i < block->iter_vars.size(); ++i) {
        kinds += block->iter_vars[i].kind == tir::IterKind::kSpatial ? "S" : "R";
        value_names.push_back(Expr(realize->iter_values[i]));
      }
      absl::StrAppend(out, Indent(body_indent), absl::StrJoin(iter_names, ", "), " = T.axis.remap(", Quote(kinds),
                      ", [", absl::StrJoin(value_names, ", "), "])\n");
    } else {
      for (size_t i = 0; i < block->iter_vars.size(); ++i) {
        const tir::IterVar& iv = block->iter_vars[i];
        const char* kind = iv.kind == tir::IterKind::kSpatial ? "spatial" : "reduce";
        const int64_t* min = tir::AsConstInt(iv.dom.min);
        std::string dom = (min != nullptr && *min == 0)
                              ? Expr(iv.dom.extent)
                              : absl::StrCat("(", Expr(iv.dom.min), ", ",
                                             Expr(tir::MakeBinary(NodeKind::kAdd, iv.dom.min, iv.dom.extent)), ")");
        std::string value = realize != nullptr ? Expr(realize->iter_values[i]) : iter_names[i];
        absl::StrAppend(out, Indent(body_indent), iter_names[i], " = T.axis.", kind, "(", dom, ", ", value, ")\n");
      }
    }
    if (realize != nullptr) {
      const int64_t* pred = tir::AsConstInt(realize->predicate);
      if (pred == nullptr || *pred == 0)
        absl::StrAppend(out, Indent(body_indent), "T.where(", Expr(realize->predicate), ")\n");
    }
    std::vector<std::string> reads, writes;
    for (const tir::BufferRegion& r : block->reads) reads.push_back(Region(r));
    for (const tir::BufferRegion& r : block->writes) writes.push_back(Region(r));
    absl::StrAppend(out, Indent(body_indent), "T.reads(", absl::StrJoin(reads, ", "), ")\n");
    absl::StrAppend(out, Indent(body_indent), "T.writes(", absl::StrJoin(writes, ", "), ")\n");
    if (!block->annotations.empty()) {
      absl::StrAppend(out, Indent(body_indent), "T.block_attr(", AttrDictToScript(block->annotations, true), ")\n");
    }
    for (const tir::Buffer& b : block->alloc_buffers) absl::StrAppend(out, AllocBuffer(b, body_indent));
    if (block->init.defined()) {
      absl::StrAppend(out, Indent(body_indent), "with T.init():\n");
      PrintStmt(block->init, body_indent + 1, out);
    }
    PrintStmt(block->body, body_indent, out);
    for (const tir::IterVar& iv : block->iter_vars) names_->Release(iv.var.get());
    for (const tir::Buffer& b : block->alloc_buffers) names_->Release(b.get());
  }

  std::string PrintFunc(const tir::PrimFuncNode* func, const std::string& name, int indent) {
    std::string out;
    Attrs attrs = func->attrs;
    bool is_private = true;
    auto gs = attrs.find("global_symbol");
    if (gs != attrs.end() && gs->second.is<std::string>()) {
      is_private = false;
      if (gs->second.get<std::string>() == name) attrs.erase(gs);
    }
    absl::StrAppend(&out, Indent(indent), is_private ? "@T.prim_func(private=True)" : "@T.prim_func", "\n");
    // A buffer of symbolic shape is a T.handle parameter bound by T.match_buffer after the
    // shape variables are declared, as TVMScript spells it.
    std::vector<std::string> params;
    std::vector<std::pair<std::string, tir::Buffer>> matched;
    for (const tir::Buffer& b : func->params) {
      bool symbolic = false;
      for (const PrimExpr& d : b->shape) symbolic = symbolic || tir::AsConstInt(d) == nullptr;
      if (symbolic) {
        std::string handle = names_->Define(&b->name, absl::StrCat("var_", b->name));
        params.push_back(absl::StrCat(handle, ": T.handle"));
        matched.emplace_back(handle, b);
      } else {
        params.push_back(absl::StrCat(names_->Define(b.get(), b->name), ": ", BufferDecl(b)));
      }
    }
    absl::StrAppend(&out, Indent(indent), "def ", name, "(", absl::StrJoin(params, ", "), "):\n");
    int body = indent + 1;
    if (!attrs.empty()) absl::StrAppend(&out, Indent(body), "T.func_attr(", AttrDictToScript(attrs, true), ")\n");
    for (const tir::Var& v : tir::ShapeVarsOf(func)) {
      absl::StrAppend(&out, Indent(body), names_->Define(v.get(), v->name), " = T.", v->dtype.ToString(), "()\n");
    }
    for (const auto& [handle, b] : matched) {
      std::string dtype = b->dtype == DataType::Float32() ? "" : absl::StrCat(", ", Quote(b->dtype.ToString()));
      absl::StrAppend(&out, Indent(body), names_->Define(b.get(), b->name), " = T.match_buffer(", handle, ", ",
                      ShapeToScript(b->shape), dtype, ")\n");
    }
    if (const tir::BlockNode* root = tir::GetRootBlock(func->body)) {
      absl::StrAppend(&out, Indent(body), "# with T.block(\"root\"):\n");
      for (const tir::Buffer& b : root->alloc_buffers) absl::StrAppend(&out, AllocBuffer(b, body));
      PrintStmt(root->body, body, &out);
    } else {
      PrintStmt(func->body, body, &out);
    }
    return out;
  }

 private:
  std::string Infix(const PrimExpr& e, const char* op, int my_prec, int* prec) {
    const auto* bin = static_cast<const tir::BinaryNode*>(e.get());
    *prec = my_prec;
    int pa, pb;
    std::string a = Expr(bin->a, &pa);
    std::string b = Expr(bin->b, &pb);
    // Python chains comparisons, so a comparison operand that is itself one needs parentheses.
    bool cmp = my_prec == kPrecCmp;
    if (pa < my_prec || (cmp && pa == my_prec)) a = absl::StrCat("(", a, ")");
    if (pb <= my_prec) b = absl::StrCat("(", b, ")");
    return absl::StrCat(a, " ", op, " ", b);
  }

  std::string Func(const char* name, const PrimExpr& e) {
    const auto* bin = static_cast<const tir::BinaryNode*>(e.get());
    return absl::StrCat(name, "(", Expr(bin->a), ", ", Expr(bin->b), ")");
  }

  NameTable* names_;
};

// ---------------------------------------------------------------------------------------------
// Graph level.

class RelaxPrinter {
 public:
  RelaxPrinter(NameTable* names, std::unordered_map<const Object*, int>* constant_index)
      : names_(names), constant_index_(constant_index) {}

  std::string Expr(const relax::Expr& e) {
    switch (e->kind()) {
      case NodeKind::kVar:
      case NodeKind::kDataflowVar: {
        const auto* v = e.as<relax::VarNode>();
        return names_->Get(v, v->name_hint);
      }
      case NodeKind::kConstant: {
        auto it = constant_index_->find(e.get());
        int index = it == constant_index_->end() ? -1 : it->second;
        return absl::StrCat("metadata[\"relax.expr.Constant\"][", index, "]");
      }
      case NodeKind::kTuple: {
        const auto& fields = e.as<relax::TupleNode>()->fields;
        std::vector<std::string> parts;
        for (const relax::Expr& f : fields) parts.push_back(Expr(f));
        if (parts.size() == 1) return absl::StrCat("(", parts[0], ",)");
        return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
      }
      case NodeKind::kTupleGetItem: {
        const auto* t = e.as<relax::TupleGetItemNode>();
        return absl::StrCat(Expr(t->tuple), "[", t->index, "]");
      }
      case NodeKind::kShapeExpr:
        return absl::StrCat("R.shape([", DimList(e.as<relax::ShapeExprNode>()->values, DimStyle::kBare), "])");
      case NodeKind::kGlobalVar: return absl::StrCat("cls.", e.as<relax::GlobalVarNode>()->name);
      case NodeKind::kExternFunc:
        return absl::StrCat("R.ExternFunc(", Quote(e.as<relax::ExternFuncNode>()->global_symbol), ")");
      case NodeKind::kOp: return absl::StrCat("R.", e.as<relax::OpNode>()->name());
      case NodeKind::kCall: return Call(e.as<relax::CallNode>());
      case NodeKind::kSeqExpr: return "<SeqExpr>";
      case NodeKind::kIf: {  // a binding prints it as a statement (PrintBinding); this is for messages
        const auto* branch = e.as<relax::IfNode>();
        return absl::StrCat("(", Expr(branch->true_branch), " if ", Expr(branch->cond), " else ",
                            Expr(branch->false_branch), ")");
      }
        MLC_CASES_NOT_EXPR
        return "<?>";
    }
  }

  std::string Call(const relax::CallNode* call) {
    std::vector<std::string> args;
    if (const auto* op = call->op.as<relax::OpNode>()) {
      const std::string& name = op->name();
      if ((name == "call_tir" || name == "call_dps_packed" || name == "call_pure_packed") && call->args.size() == 2) {
        std::string callee = name == "call_tir" ? Expr(call->args[0])
                                                : (call->args[0].as<relax::ExternFuncNode>()
                                                       ? Quote(call->args[0].as<relax::ExternFuncNode>()->global_symbol)
                                                       : Expr(call->args[0]));
        std::string out_sinfo;
        if (call->sinfo_args.size() == 1) {
          if (const auto* tuple = call->sinfo_args[0].as<relax::TupleStructInfoNode>()) {
            std::vector<std::string> parts;
            for (const StructInfo& f : tuple->fields) parts.push_back(StructInfoToScript(f));
            out_sinfo = absl::StrCat("[", absl::StrJoin(parts, ", "), "]");
          } else {
            out_sinfo = StructInfoToScript(call->sinfo_args[0]);
          }
        }
        return absl::StrCat("R.", name, "(", callee, ", ", Expr(call->args[1]), ", out_sinfo=", out_sinfo, ")");
      }
      if (relax::MatchCastTarget(relax::Expr(call))) {
        return absl::StrCat("R.match_cast(", Expr(call->args[0]), ", ", StructInfoToScript(call->sinfo_args[0]), ")");
      }
      for (const relax::Expr& a : call->args) args.push_back(Expr(a));
      std::set<std::string> printed;
      for (const relax::OpAttrSpec& spec : op->info().attrs) {
        auto it = call->attrs.find(spec.name);
        const AttrValue& v = it == call->attrs.end() ? spec.default_value : it->second;
        args.push_back(absl::StrCat(spec.name, "=", AttrToScript(v, false)));
        printed.insert(spec.name);
      }
      for (const auto& [key, value] : call->attrs) {
        if (!printed.count(key)) args.push_back(absl::StrCat(key, "=", AttrToScript(value, false)));
      }
      if (call->sinfo_args.size() == 1)
        args.push_back(absl::StrCat("sinfo_args=", StructInfoToScript(call->sinfo_args[0])));
      return absl::StrCat("R.", name, "(", absl::StrJoin(args, ", "), ")");
    }
    for (const relax::Expr& a : call->args) args.push_back(Expr(a));
    std::string callee =
        call->op.as<relax::ExternFuncNode>()
            ? absl::StrCat("R.ExternFunc(", Quote(call->op.as<relax::ExternFuncNode>()->global_symbol), ")")
            : Expr(call->op);
    return absl::StrCat(callee, "(", absl::StrJoin(args, ", "), ")");
  }

  /*! \brief Whether the binding's struct info is spelled out by its value (no annotation). */
  static bool ValueDeterminesStructInfo(const relax::Expr& value) {
    const auto* call = value.as<relax::CallNode>();
    return call != nullptr && call->op.as<relax::OpNode>() != nullptr && !call->sinfo_args.empty();
  }

  void PrintBinding(const relax::VarBindingNode* b, int indent, std::string* out) {
    if (const auto* branch = b->value.as<relax::IfNode>()) {
      // TVMScript's spelling: the variable is bound at the end of each branch.
      std::string cond = Expr(branch->cond), then_value = Expr(branch->true_branch),
                  else_value = Expr(branch->false_branch);
      std::string name = names_->Define(b->var.get(), b->var->name_hint);
      std::string sinfo = StructInfoToScript(b->var->struct_info());
      absl::StrAppend(out, Indent(indent), "if ", cond, ":\n", Indent(indent + 1), name, ": ", sinfo, " = ", then_value,
                      "\n");
      absl::StrAppend(out, Indent(indent), "else:\n", Indent(indent + 1), name, ": ", sinfo, " = ", else_value, "\n");
      return;
    }
    std::string value = Expr(b->value);
    std::string name = names_->Define(b->var.get(), b->var->name_hint);
    if (ValueDeterminesStructInfo(b->value)) {
      absl::StrAppend(out, Indent(indent), name, " = ", value, "\n");
    } else {
      absl::StrAppend(out, Indent(indent), name, ": ", StructInfoToScript(b->var->struct_info()), " = ", value, "\n");
    }
  }

  std::string PrintFunc(const relax::FunctionNode* func, const std::string& name, int indent, bool in_module) {
    std::string out;
    Attrs attrs = func->attrs;
    bool is_private = true;
    auto gs = attrs.find("global_symbol");
    if (gs != attrs.end() && gs->second.is<std::string>()) {
      is_private = false;
      if (gs->second.get<std::string>() == name) attrs.erase(gs);
    }
    absl::StrAppend(&out, Indent(indent), is_private ? "@R.function(private=True)" : "@R.function", "\n");
    std::vector<std::string> params;
    for (const relax::Var& p : func->params) {
      params.push_back(absl::StrCat(names_->Define(p.get(), p->name_hint), ": ",
                                    StructInfoToScript(p->struct_info(), DimStyle::kQuoted)));
    }
    absl::StrAppend(&out, Indent(indent), "def ", name, "(", absl::StrJoin(params, ", "), ") -> ",
                    StructInfoToScript(func->ret_struct_info, DimStyle::kQuoted), ":\n");
    int body = indent + 1;
    // The shape variables the signature defines, for the body's annotations.
    for (const tir::Var& v : func->ShapeVars()) absl::StrAppend(&out, Indent(body), v->name, " = T.int64()\n");
    if (!attrs.empty()) absl::StrAppend(&out, Indent(body), "R.func_attr(", AttrDictToScript(attrs, false), ")\n");
    if (in_module && ReferencesGlobal(func)) absl::StrAppend(&out, Indent(body), "cls = Module\n");
    for (const relax::BindingBlock& block : func->body->blocks) {
      if (block->is_dataflow) {
        absl::StrAppend(&out, Indent(body), "with R.dataflow():\n");
        std::vector<std::string> outputs;
        for (const relax::VarBinding& b : block->bindings) {
          PrintBinding(b.get(), body + 1, &out);
          if (b->var->kind() == NodeKind::kVar) outputs.push_back(names_->Get(b->var.get(), b->var->name_hint));
        }
        absl::StrAppend(&out, Indent(body + 1), "R.output(", absl::StrJoin(outputs, ", "), ")\n");
      } else {
        for (const relax::VarBinding& b : block->bindings) PrintBinding(b.get(), body, &out);
      }
    }
    absl::StrAppend(&out, Indent(body), "return ", Expr(func->body->body), "\n");
    return out;
  }

 private:
  static bool ReferencesGlobal(const relax::FunctionNode* func) {
    std::function<bool(const relax::Expr&)> refs = [&](const relax::Expr& e) -> bool {
      if (e->kind() == NodeKind::kGlobalVar) return true;
      if (const auto* call = e.as<relax::CallNode>()) {
        if (refs(call->op)) return true;
        for (const relax::Expr& a : call->args) {
          if (refs(a)) return true;
        }
      }
      if (const auto* t = e.as<relax::TupleNode>()) {
        for (const relax::Expr& f : t->fields) {
          if (refs(f)) return true;
        }
      }
      if (const auto* g = e.as<relax::TupleGetItemNode>()) return refs(g->tuple);
      if (const auto* branch = e.as<relax::IfNode>()) return refs(branch->true_branch) || refs(branch->false_branch);
      return false;
    };
    for (const relax::BindingBlock& block : func->body->blocks) {
      for (const relax::VarBinding& b : block->bindings) {
        if (refs(b->value)) return true;
      }
    }
    return refs(func->body->body);
  }

  NameTable* names_;
  std::unordered_map<const Object*, int>* constant_index_;
};

void CollectConstantsInExpr(const relax::Expr& e, std::vector<relax::Expr>* out, std::set<const Object*>* seen) {
  switch (e->kind()) {
    case NodeKind::kConstant:
      if (seen->insert(e.get()).second) out->push_back(e);
      return;
    case NodeKind::kCall: {
      const auto* call = e.as<relax::CallNode>();
      for (const relax::Expr& a : call->args) CollectConstantsInExpr(a, out, seen);
      return;
    }
    case NodeKind::kTuple:
      for (const relax::Expr& f : e.as<relax::TupleNode>()->fields) CollectConstantsInExpr(f, out, seen);
      return;
    case NodeKind::kTupleGetItem: CollectConstantsInExpr(e.as<relax::TupleGetItemNode>()->tuple, out, seen); return;
    case NodeKind::kIf: {
      const auto* branch = e.as<relax::IfNode>();
      for (const relax::Expr* part : {&branch->cond, &branch->true_branch, &branch->false_branch}) {
        CollectConstantsInExpr(*part, out, seen);
      }
      return;
    }
    // Leaves without constants inside (a SeqExpr is a function body, visited by bindings).
    case NodeKind::kVar:
    case NodeKind::kDataflowVar:
    case NodeKind::kShapeExpr:
    case NodeKind::kGlobalVar:
    case NodeKind::kExternFunc:
    case NodeKind::kOp:
    case NodeKind::kSeqExpr: MLC_CASES_NOT_EXPR return;
  }
}

/*! \brief Module print order: PrimFuncs sorted by name, then graph functions sorted by name. */
std::vector<std::pair<std::string, BaseFunc>> PrintOrder(const IRModule& mod) {
  std::vector<std::pair<std::string, BaseFunc>> order;
  for (const auto& [name, func] : mod.functions()) {
    if (func->kind() == NodeKind::kPrimFunc) order.emplace_back(name, func);
  }
  for (const auto& [name, func] : mod.functions()) {
    if (func->kind() == NodeKind::kFunction) order.emplace_back(name, func);
  }
  return order;
}

std::string MetadataSection(const std::vector<relax::Expr>& constants) {
  std::string out = "metadata = {\"relax.expr.Constant\": [\n";
  for (const relax::Expr& c : constants) {
    const TensorData& data = c.as<relax::ConstantNode>()->data;
    absl::StrAppend(&out, "    {\"dtype\": ", Quote(data.dtype().ToString()), ", \"shape\": [",
                    absl::StrJoin(data.shape(), ", "), "], \"data\": \"", absl::Base64Escape(data.bytes()), "\"},\n");
  }
  return out + "]}\n";
}

}  // namespace

std::vector<relax::Expr> CollectConstants(const IRModule& mod) {
  std::vector<relax::Expr> constants;
  std::set<const Object*> seen;
  for (const auto& [name, func] : PrintOrder(mod)) {
    const auto* f = func.as<relax::FunctionNode>();
    if (f == nullptr) continue;
    for (const relax::BindingBlock& block : f->body->blocks) {
      for (const relax::VarBinding& b : block->bindings) CollectConstantsInExpr(b->value, &constants, &seen);
    }
    CollectConstantsInExpr(f->body->body, &constants, &seen);
  }
  return constants;
}

std::string FormatPythonFloat(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  // Shortest digit string that reads back to the same double, as Python's repr does.
  char buf[64];
  int precision = 1;
  for (; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*e", precision - 1, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  std::string sci(buf);  // d.ddde[+-]XX
  size_t e_pos = sci.find('e');
  std::string mantissa = sci.substr(0, e_pos);
  int exponent = std::atoi(sci.c_str() + e_pos + 1);
  bool negative = !mantissa.empty() && mantissa[0] == '-';
  if (negative) mantissa = mantissa.substr(1);
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out;
  if (exponent < -4 || exponent >= 16) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char exp_buf[16];
    std::snprintf(exp_buf, sizeof(exp_buf), "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
    out += exp_buf;
  } else if (exponent < 0) {
    out = "0." + std::string(-exponent - 1, '0') + digits;
  } else {
    int int_digits = exponent + 1;
    if (static_cast<int>(digits.size()) <= int_digits) {
      out = digits + std::string(int_digits - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, int_digits) + "." + digits.substr(int_digits);
    }
  }
  return negative ? "-" + out : out;
}

std::string PrintModule(const IRModule& mod, const PrintOptions& options) {
  std::vector<relax::Expr> constants = CollectConstants(mod);
  std::unordered_map<const Object*, int> constant_index;
  for (size_t i = 0; i < constants.size(); ++i) constant_index[constants[i].get()] = static_cast<int>(i);
  std::string out;
  std::vector<std::pair<std::string, BaseFunc>> order = PrintOrder(mod);
  bool has_tir = false, has_relax = false;
  for (const auto& [name, func] : order) {
    (func->kind() == NodeKind::kPrimFunc ? has_tir : has_relax) = true;
    // A graph function's shape variables are declared with T.int64().
    if (const auto* f = func.as<relax::FunctionNode>()) has_tir = has_tir || !f->ShapeVars().empty();
  }
  if (options.print_imports) {
    out += "# from tvm.script import ir as I\n";
    if (has_tir) out += "# from tvm.script import tir as T\n";
    if (has_relax) out += "# from tvm.script import relax as R\n";
    out += "\n";
  }
  if (options.show_meta && !constants.empty()) out += MetadataSection(constants) + "\n";
  out += "@I.ir_module\nclass Module:\n";
  bool first = true;
  if (!mod.attrs().empty()) {
    out += absl::StrCat("    I.module_attrs(", AttrDictToScript(mod.attrs(), false), ")\n");
    first = false;
  } else if (order.empty()) {
    out += "    pass\n";
  }
  for (const auto& [name, func] : order) {
    if (!first) out += "\n";
    first = false;
    NameTable names;
    if (const auto* prim = func.as<tir::PrimFuncNode>()) {
      out += TirPrinter(&names).PrintFunc(prim, name, 1);
    } else {
      names.Reserve("cls");
      out += RelaxPrinter(&names, &constant_index).PrintFunc(func.as<relax::FunctionNode>(), name, 1, true);
    }
  }
  if (!options.show_meta && !constants.empty()) {
    out += "\n# Metadata omitted. Use show_meta=True in script() method to show it.\n";
  }
  return out;
}

std::string PrintPrimFunc(const tir::PrimFunc& func, const std::string& name, const PrintOptions& options) {
  std::string out = options.print_imports ? "# from tvm.script import tir as T\n\n" : "";
  NameTable names;
  return out + TirPrinter(&names).PrintFunc(func.get(), name, 0);
}

std::string PrintFunction(const relax::Function& func, const std::string& name, const PrintOptions& options) {
  IRModule mod;
  mod.Add(name, func);
  std::vector<relax::Expr> constants = CollectConstants(mod);
  std::unordered_map<const Object*, int> constant_index;
  for (size_t i = 0; i < constants.size(); ++i) constant_index[constants[i].get()] = static_cast<int>(i);
  std::string out = options.print_imports ? "# from tvm.script import relax as R\n\n" : "";
  NameTable names;
  return out + RelaxPrinter(&names, &constant_index).PrintFunc(func.get(), name, 0, false);
}

std::string PrintPrimExpr(const tir::PrimExpr& expr) {
  NameTable names;
  return TirPrinter(&names).Expr(expr);
}

std::string PrintExpr(const relax::Expr& expr) {
  NameTable names;
  std::unordered_map<const Object*, int> constant_index;
  return RelaxPrinter(&names, &constant_index).Expr(expr);
}

std::string PrintStructInfo(const relax::StructInfo& sinfo) { return StructInfoToScript(sinfo); }

}  // namespace mlc
