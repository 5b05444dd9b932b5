/*! \file converter.cc
 *  \brief Gives the Python-subset syntax tree its TVMScript meaning: @I.ir_module classes,
 *         @T.prim_func loop programs and @R.function graph functions, in both the older
 *         spelling the seeds use (T.Buffer[...], Tensor(...), R.call_tir(f, args, shape,
 *         dtype=...)) and the newer one (T.Buffer(...), R.Tensor(...), out_sinfo=...).
 */
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <set>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "frontend/tvmscript.h"
#include "ir/graph/op.h"
#include "ir/graph/verifier.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/intrinsics.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/shape_expr.h"
#include "ir/tir/tir_util.h"
#include "support/python_syntax/ast.h"
#include "support/python_syntax/parser.h"
#include "support/status_macros.h"

namespace mlc {
namespace script {
namespace {

using relax::StructInfo;
using tir::FloatImm;
using tir::IntImm;
using tir::PrimExpr;
using tir::Stmt;

/*! \brief Position-aware errors shared by both converters. */
class ErrorReporter {
 public:
  explicit ErrorReporter(const std::string& filename) : filename_(filename) {}
  absl::Status Error(const AstPtr& at, const std::string& message) const {
    return absl::InvalidArgumentError(absl::StrCat(filename_, ":", at->line, ":", at->col, ": ", message));
  }
  const std::string& filename() const { return filename_; }

 private:
  std::string filename_;
};

std::string Describe(const AstPtr& node) {
  switch (node->kind) {
    case AstKind::kName: return absl::StrCat("'", node->text, "'");
    case AstKind::kAttribute: {
      std::string dotted = DottedName(node);
      return dotted.empty() ? "an attribute" : absl::StrCat("'", dotted, "'");
    }
    case AstKind::kCall: {
      std::string callee = DottedName(node->a);
      return callee.empty() ? "a call" : absl::StrCat("a call of ", callee);
    }
    case AstKind::kInt: return absl::StrCat("integer ", node->int_value);
    case AstKind::kFloat: return "a float literal";
    case AstKind::kString: return absl::StrCat("string \"", node->text, "\"");
    case AstKind::kTuple: return "a tuple";
    case AstKind::kList: return "a list";
    case AstKind::kDict: return "a dict";
    case AstKind::kSubscript: return "a subscript";
    default: return "an expression";
  }
}

/*! \brief The part after "T." / "R." / "relax." / "tir." in a dotted callee, else "". */
std::string StripPrefix(const std::string& dotted, std::initializer_list<const char*> prefixes) {
  for (const char* p : prefixes) {
    std::string prefix = absl::StrCat(p, ".");
    if (absl::StartsWith(dotted, prefix)) return dotted.substr(prefix.size());
  }
  return "";
}

std::string TirName(const AstPtr& callee) { return StripPrefix(DottedName(callee), {"T", "tir", "tvm.tir"}); }
std::string RelaxName(const AstPtr& callee) { return StripPrefix(DottedName(callee), {"R", "relax", "tvm.relax"}); }

const AstPtr* FindKeyword(const AstPtr& call, const std::string& name) {
  for (const Keyword& kw : call->keywords) {
    if (kw.name == name) return &kw.value;
  }
  return nullptr;
}

/*! \brief Checks a call's positional and keyword arguments against what is accepted. */
absl::Status CheckArgs(const ErrorReporter& err, const AstPtr& call, const std::string& what, size_t min_args,
                       size_t max_args, std::initializer_list<const char*> keywords = {}) {
  if (call->elts.size() < min_args || call->elts.size() > max_args) {
    std::string expected = min_args == max_args ? absl::StrCat(min_args) : absl::StrCat(min_args, " to ", max_args);
    return err.Error(call, absl::StrCat(what, " takes ", expected, " positional argument", max_args == 1 ? "" : "s",
                                        ", got ", call->elts.size()));
  }
  for (const Keyword& kw : call->keywords) {
    bool known = false;
    for (const char* k : keywords) known = known || kw.name == k;
    if (!known) {
      return err.Error(
          kw.value,
          absl::StrCat(what, " has no keyword argument '", kw.name, "'",
                       keywords.size() ? absl::StrCat(" (accepted: ", absl::StrJoin(keywords, ", "), ")") : ""));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<DataType> ParseDtype(const ErrorReporter& err, const AstPtr& node) {
  if (node->kind != AstKind::kString)
    return err.Error(node, absl::StrCat("found ", Describe(node), ", expected a dtype string such as \"float32\""));
  absl::StatusOr<DataType> dtype = DataType::Parse(node->text);
  if (!dtype.ok()) return err.Error(node, std::string(dtype.status().message()));
  return dtype;
}

/*! \brief An integer literal, possibly negated or wrapped as T.int64(n) / T.int32(n). */
bool AsIntLiteral(const AstPtr& node, int64_t* value, DataType* dtype) {
  if (node->kind == AstKind::kInt) {
    *value = node->int_value;
    *dtype = DataType::Int32();
    return true;
  }
  if (node->kind == AstKind::kUnaryOp && node->text == "-" && node->a->kind == AstKind::kInt) {
    *value = -node->a->int_value;
    *dtype = DataType::Int32();
    return true;
  }
  if (node->kind == AstKind::kCall && node->elts.size() == 1) {
    std::string name = TirName(node->a);
    if (name == "int64" || name == "int32") {
      DataType ignored;
      if (!AsIntLiteral(node->elts[0], value, &ignored)) return false;
      *dtype = name == "int64" ? DataType::Int64() : DataType::Int32();
      return true;
    }
  }
  return false;
}

// =============================================================================================
// Loop level.

class TirConverter {
 public:
  explicit TirConverter(const ErrorReporter& err) : err_(err) {}

  absl::StatusOr<tir::PrimFunc> Convert(const AstPtr& def, bool is_private) {
    PushScope();
    std::vector<tir::Buffer> params;
    handles_.clear();
    for (const Param& p : def->params) {
      if (p.annotation == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(err_.filename(), ":", p.line, ":", p.col, ": parameter ", p.name,
                                                       " needs a T.Buffer (or T.handle) annotation"));
      }
      if (TirName(p.annotation) == "handle") {
        // Bound to a buffer by T.match_buffer in the body (symbolic shapes are declared there).
        handles_.push_back({p.name, params.size(), false});
        params.push_back(tir::Buffer());
        continue;
      }
      MLC_ASSIGN_OR_RETURN(buffer, BufferFromAnnotation(p.name, p.annotation));
      params.push_back(buffer);
      Define(p.name, Binding{buffer, nullptr});
    }
    params_ = &params;
    Attrs attrs;
    std::vector<AstPtr> body = def->body;
    // A leading docstring and T.func_attr are function-level.
    std::vector<AstPtr> stmts;
    for (const AstPtr& s : body) {
      if (s->kind == AstKind::kExprStmt && s->a->kind == AstKind::kCall && TirName(s->a->a) == "func_attr") {
        MLC_RETURN_IF_ERROR(CheckArgs(err_, s->a, "T.func_attr", 1, 1));
        MLC_ASSIGN_OR_RETURN(parsed, ParseAttrDict(s->a->elts[0]));
        for (auto& [k, v] : parsed) attrs[k] = v;
        continue;
      }
      stmts.push_back(s);
    }
    // An explicit `with T.block("root"):` holding everything is the root block itself.
    if (stmts.size() == 1 && stmts[0]->kind == AstKind::kWith && stmts[0]->a->kind == AstKind::kCall &&
        TirName(stmts[0]->a->a) == "block" && stmts[0]->a->elts.size() == 1 &&
        stmts[0]->a->elts[0]->kind == AstKind::kString && stmts[0]->a->elts[0]->text == "root") {
      stmts = stmts[0]->body;
    }
    BlockFrame root;
    frames_.push_back(&root);
    MLC_ASSIGN_OR_RETURN(seq, Statements(stmts));
    frames_.pop_back();
    params_ = nullptr;
    for (const Handle& h : handles_) {
      if (!h.matched) {
        return err_.Error(def, absl::StrCat("parameter ", h.name, " is a T.handle but no T.match_buffer(", h.name,
                                            ", ...) binds it"));
      }
    }
    if (!root.iter_vars.empty() || root.reads || root.writes || root.init.defined()) {
      return err_.Error(def, "block declarations (T.axis, T.reads, T.init...) must be inside a `with T.block(...)`");
    }
    if (!is_private) {
      if (!attrs.count("global_symbol")) attrs["global_symbol"] = def->text;
    } else {
      attrs.erase("global_symbol");
    }
    PopScope();
    return tir::PrimFunc(new tir::PrimFuncNode(params, tir::MakeRootBlock(root.alloc_buffers, seq), attrs));
  }

 private:
  struct Binding {
    tir::Buffer buffer;
    tir::Var var;
  };
  /*! \brief A T.handle parameter: its slot in the parameter list, filled by T.match_buffer. */
  struct Handle {
    std::string name;
    size_t index;
    bool matched;
  };
  std::vector<Handle> handles_;
  std::vector<tir::Buffer>* params_ = nullptr;
  /*! \brief Loop extents by loop variable, for T.axis.remap domains. */
  std::map<const Object*, tir::Range> loop_ranges_;

  struct BlockFrame {
    std::vector<tir::IterVar> iter_vars;
    std::vector<PrimExpr> iter_values;
    std::optional<std::vector<tir::BufferRegion>> reads, writes;
    std::vector<tir::Buffer> alloc_buffers;
    Stmt init;
    PrimExpr predicate;
    Attrs annotations;
  };

  void PushScope() { scopes_.emplace_back(); }
  void PopScope() { scopes_.pop_back(); }
  void Define(const std::string& name, Binding b) { scopes_.back()[name] = std::move(b); }
  const Binding* Lookup(const std::string& name) const {
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      auto found = it->find(name);
      if (found != it->end()) return &found->second;
    }
    return nullptr;
  }

  absl::StatusOr<Attrs> ParseAttrDict(const AstPtr& node) { return AttrDictOf(err_, node); }

 public:
  /*! \brief A dict literal of attributes: {"name": literal, ...}. */
  static absl::StatusOr<Attrs> AttrDictOf(const ErrorReporter& err, const AstPtr& node) {
    if (node->kind != AstKind::kDict)
      return err.Error(node, absl::StrCat("found ", Describe(node), ", expected a dict of attributes"));
    Attrs attrs;
    for (size_t i = 0; i + 1 < node->elts.size(); i += 2) {
      const AstPtr& key = node->elts[i];
      if (key->kind != AstKind::kString) return err.Error(key, "attribute names must be strings");
      MLC_ASSIGN_OR_RETURN(value, AttrLiteralOf(err, node->elts[i + 1]));
      attrs[key->text] = value;
    }
    return attrs;
  }

  /*! \brief A literal attribute value: True/False/T.bool(...), ints, floats, strings, lists. */
  static absl::StatusOr<AttrValue> AttrLiteralOf(const ErrorReporter& err, const AstPtr& v) {
    switch (v->kind) {
      case AstKind::kBool: return AttrValue(v->int_value != 0);
      case AstKind::kInt: return AttrValue(static_cast<int64_t>(v->int_value));
      case AstKind::kFloat: return AttrValue(v->float_value);
      case AstKind::kString: return AttrValue(v->text);
      case AstKind::kNone: return AttrValue();
      case AstKind::kUnaryOp:
        if (v->text == "-" && v->a->kind == AstKind::kInt) return AttrValue(static_cast<int64_t>(-v->a->int_value));
        if (v->text == "-" && v->a->kind == AstKind::kFloat) return AttrValue(-v->a->float_value);
        break;
      case AstKind::kList:
      case AstKind::kTuple: {
        std::vector<int64_t> ints;
        std::vector<double> floats;
        bool all_int = true;
        for (const AstPtr& e : v->elts) {
          MLC_ASSIGN_OR_RETURN(x, AttrLiteralOf(err, e));
          if (x.is<int64_t>()) {
            ints.push_back(x.get<int64_t>());
            floats.push_back(static_cast<double>(x.get<int64_t>()));
          } else if (x.is<double>()) {
            all_int = false;
            floats.push_back(x.get<double>());
          } else {
            return err.Error(e, "lists in attributes may hold only numbers");
          }
        }
        if (all_int) return AttrValue(ints);
        return AttrValue(floats);
      }
      case AstKind::kCall: {
        std::string name = TirName(v->a);
        if (name == "bool" && v->elts.size() == 1 && v->elts[0]->kind == AstKind::kBool) {
          return AttrValue(v->elts[0]->int_value != 0);
        }
        // float("inf"), float("-inf"), float("nan"): the non-finite values, as Python spells them.
        if (DottedName(v->a) == "float" && v->elts.size() == 1 && v->elts[0]->kind == AstKind::kString) {
          const std::string& text = v->elts[0]->text;
          if (text == "inf") return AttrValue(std::numeric_limits<double>::infinity());
          if (text == "-inf") return AttrValue(-std::numeric_limits<double>::infinity());
          if (text == "nan") return AttrValue(std::numeric_limits<double>::quiet_NaN());
          return err.Error(v, absl::StrCat("float(\"", text, "\") is not inf, -inf or nan"));
        }
        int64_t value;
        DataType dtype;
        if (AsIntLiteral(v, &value, &dtype)) return AttrValue(value);
        break;
      }
      default: break;
    }
    return err.Error(v, absl::StrCat("found ", Describe(v), ", expected a literal attribute value"));
  }

 private:
  absl::StatusOr<AttrValue> AttrLiteral(const AstPtr& v) { return AttrLiteralOf(err_, v); }

  /*! \brief A shape: (d0, d1), [d0, d1], or a single extent; each an int or T.int64(n). */
  absl::StatusOr<std::vector<PrimExpr>> ParseShape(const AstPtr& node) {
    std::vector<AstPtr> dims;
    if (node->kind == AstKind::kTuple || node->kind == AstKind::kList) {
      dims = node->elts;
    } else {
      dims = {node};
    }
    std::vector<PrimExpr> shape;
    for (const AstPtr& d : dims) {
      int64_t value;
      DataType dtype;
      if (!AsIntLiteral(d, &value, &dtype)) {
        // A symbolic extent: an integer expression of variables declared with `n = T.int64()`.
        absl::StatusOr<PrimExpr> e = Expr(d);
        if (!e.ok() || !tir::IsShapeExpr(*e)) {
          return err_.Error(
              d, absl::StrCat("found ", Describe(d), ", expected an extent: a constant, or an integer expression of ",
                              "shape variables declared with `n = T.int64()`",
                              e.ok() ? "" : absl::StrCat(" (", e.status().message(), ")")));
        }
        shape.push_back(*e);
        continue;
      }
      if (value < 0) return err_.Error(d, "extents must not be negative");
      shape.push_back(IntImm(dtype, value));
    }
    return shape;
  }

  /*! \brief T.Buffer((1, 128), "float32") or the older T.Buffer[(1, 128), "float32"]. */
  absl::StatusOr<tir::Buffer> BufferFromAnnotation(const std::string& name, const AstPtr& ann) {
    AstPtr shape_node, dtype_node;
    if (ann->kind == AstKind::kCall && TirName(ann->a) == "Buffer") {
      MLC_RETURN_IF_ERROR(CheckArgs(err_, ann, "T.Buffer", 1, 2, {"dtype", "scope", "offset_factor", "align"}));
      shape_node = ann->elts[0];
      if (ann->elts.size() > 1) dtype_node = ann->elts[1];
      if (const AstPtr* kw = FindKeyword(ann, "dtype")) dtype_node = *kw;
    } else if (ann->kind == AstKind::kSubscript && TirName(ann->a) == "Buffer") {
      const AstPtr& index = ann->b;
      if (index->kind == AstKind::kTuple && index->elts.size() == 2) {
        shape_node = index->elts[0];
        dtype_node = index->elts[1];
      } else {
        shape_node = index;
      }
    } else {
      return err_.Error(ann,
                        absl::StrCat("found ", Describe(ann), ", expected a T.Buffer((shape), \"dtype\") annotation"));
    }
    MLC_ASSIGN_OR_RETURN(shape, ParseShape(shape_node));
    DataType dtype = DataType::Float32();
    if (dtype_node != nullptr) {
      MLC_ASSIGN_OR_RETURN(dt, ParseDtype(err_, dtype_node));
      dtype = dt;
    }
    return tir::MakeBuffer(name, shape, dtype);
  }

  absl::StatusOr<tir::Buffer> AllocBuffer(const std::string& name, const AstPtr& call) {
    MLC_RETURN_IF_ERROR(CheckArgs(err_, call, "T.alloc_buffer", 1, 2, {"dtype", "scope", "align", "offset_factor"}));
    MLC_ASSIGN_OR_RETURN(shape, ParseShape(call->elts[0]));
    DataType dtype = DataType::Float32();
    const AstPtr* dtype_node = call->elts.size() > 1 ? &call->elts[1] : FindKeyword(call, "dtype");
    if (dtype_node != nullptr) {
      MLC_ASSIGN_OR_RETURN(dt, ParseDtype(err_, *dtype_node));
      dtype = dt;
    }
    return tir::MakeBuffer(name, shape, dtype);
  }

  // ---- Statements.

  absl::StatusOr<Stmt> Statements(const std::vector<AstPtr>& stmts) {
    std::vector<Stmt> out;
    for (const AstPtr& s : stmts) {
      MLC_ASSIGN_OR_RETURN(stmt, Statement(s));
      if (stmt.defined()) out.push_back(stmt);
    }
    if (out.empty()) return Stmt(new tir::EvaluateNode(tir::I32(0)));
    return tir::MakeSeq(std::move(out));
  }

  BlockFrame* Frame() { return frames_.empty() ? nullptr : frames_.back(); }

  /*! \brief Returns an undefined Stmt for declarations that only update the block frame. */
  absl::StatusOr<Stmt> Statement(const AstPtr& s) {
    switch (s->kind) {
      case AstKind::kPass:
      case AstKind::kImport: return Stmt();
      case AstKind::kExprStmt: return ExprStatement(s);
      case AstKind::kAssign: return Assign(s);
      case AstKind::kAugAssign: {
        if (s->a->kind != AstKind::kSubscript)
          return err_.Error(s, "augmented assignment needs a buffer element target");
        MLC_ASSIGN_OR_RETURN(load, Expr(s->a));
        MLC_ASSIGN_OR_RETURN(rhs, Expr(s->b));
        MLC_ASSIGN_OR_RETURN(value, Binary(s, s->text, load, rhs));
        return StoreTo(s->a, value);
      }
      case AstKind::kAnnAssign: return err_.Error(s, "annotated assignment is not supported in a T.prim_func");
      case AstKind::kFor: return For(s);
      case AstKind::kWith: return With(s);
      case AstKind::kIf: {
        MLC_ASSIGN_OR_RETURN(cond, Expr(s->a));
        MLC_ASSIGN_OR_RETURN(then_case, Statements(s->body));
        Stmt else_case;
        if (!s->orelse.empty()) {
          MLC_ASSIGN_OR_RETURN(e, Statements(s->orelse));
          else_case = e;
        }
        return Stmt(new tir::IfThenElseNode(cond, then_case, else_case));
      }
      case AstKind::kReturn: return err_.Error(s, "a T.prim_func returns through its output buffers, not `return`");
      case AstKind::kFunctionDef:
      case AstKind::kClassDef: return err_.Error(s, "nested definitions are not supported");
      default: return err_.Error(s, "unsupported statement in a T.prim_func");
    }
  }

  absl::StatusOr<Stmt> ExprStatement(const AstPtr& s) {
    const AstPtr& e = s->a;
    if (e->kind == AstKind::kString) return Stmt();  // docstring
    if (e->kind != AstKind::kCall) return err_.Error(e, absl::StrCat("found ", Describe(e), ", expected a statement"));
    std::string name = TirName(e->a);
    BlockFrame* frame = Frame();
    if (name == "reads" || name == "writes") {
      if (frame == nullptr || frames_.size() < 2) return err_.Error(e, absl::StrCat("T.", name, " outside a block"));
      std::vector<tir::BufferRegion> regions;
      std::vector<AstPtr> args = e->elts;
      if (args.size() == 1 && (args[0]->kind == AstKind::kList || args[0]->kind == AstKind::kTuple))
        args = args[0]->elts;
      for (const AstPtr& a : args) {
        MLC_ASSIGN_OR_RETURN(region, Region(a));
        regions.push_back(region);
      }
      (name == "reads" ? frame->reads : frame->writes) = regions;
      return Stmt();
    }
    if (name == "where") {
      if (frame == nullptr || frames_.size() < 2) return err_.Error(e, "T.where outside a block");
      MLC_RETURN_IF_ERROR(CheckArgs(err_, e, "T.where", 1, 1));
      MLC_ASSIGN_OR_RETURN(pred, Expr(e->elts[0]));
      frame->predicate = pred;
      return Stmt();
    }
    if (name == "block_attr") {
      if (frame == nullptr || frames_.size() < 2) return err_.Error(e, "T.block_attr outside a block");
      MLC_RETURN_IF_ERROR(CheckArgs(err_, e, "T.block_attr", 1, 1));
      MLC_ASSIGN_OR_RETURN(attrs, ParseAttrDict(e->elts[0]));
      frame->annotations = attrs;
      return Stmt();
    }
    if (name == "evaluate") {
      MLC_RETURN_IF_ERROR(CheckArgs(err_, e, "T.evaluate", 1, 1));
      MLC_ASSIGN_OR_RETURN(v, Expr(e->elts[0]));
      return Stmt(new tir::EvaluateNode(v));
    }
    if (name == "func_attr") return err_.Error(e, "T.func_attr must be at the top of the function body");
    return err_.Error(e, absl::StrCat("found ", Describe(e),
                                      ", expected a statement (T.reads, T.writes, T.where, "
                                      "T.evaluate, a buffer store, a loop or a block)"));
  }

  absl::StatusOr<tir::BufferRegion> Region(const AstPtr& node) {
    if (node->kind != AstKind::kSubscript || node->a->kind != AstKind::kName) {
      return err_.Error(node,
                        absl::StrCat("found ", Describe(node), ", expected a buffer region such as A[vi, 0:128]"));
    }
    MLC_ASSIGN_OR_RETURN(buffer, BufferNamed(node->a));
    std::vector<AstPtr> indices = node->b->kind == AstKind::kTuple ? node->b->elts : std::vector<AstPtr>{node->b};
    if (indices.size() != buffer->shape.size()) {
      return err_.Error(node, absl::StrCat("region of ", buffer->name, " has ", indices.size(), " indices, but it has ",
                                           buffer->shape.size(), " dimensions"));
    }
    tir::BufferRegion region{buffer, {}};
    for (size_t d = 0; d < indices.size(); ++d) {
      const AstPtr& idx = indices[d];
      DataType it = buffer->shape[d]->dtype;
      if (idx->kind == AstKind::kSlice) {
        PrimExpr lo = tir::Const(it, 0), hi = buffer->shape[d];
        if (idx->a != nullptr) {
          MLC_ASSIGN_OR_RETURN(l, Expr(idx->a));
          lo = l;
        }
        if (idx->b != nullptr) {
          MLC_ASSIGN_OR_RETURN(h, Expr(idx->b));
          hi = h;
        }
        const int64_t* lc = tir::AsConstInt(lo);
        // `A[i * 4 : i * 4 + 4]` is the region (i * 4, 4): extents are simplified as TVM's parser does.
        PrimExpr extent = (lc != nullptr && *lc == 0) ? hi : tir::Analyzer().Simplify(tir::operator-(hi, lo));
        region.region.push_back({lo, extent});
      } else {
        MLC_ASSIGN_OR_RETURN(i, Expr(idx));
        region.region.push_back({i, tir::Const(i->dtype, 1)});
      }
    }
    return region;
  }

  absl::StatusOr<tir::Buffer> BufferNamed(const AstPtr& name_node) {
    const Binding* b = Lookup(name_node->text);
    if (b == nullptr) return err_.Error(name_node, absl::StrCat("undefined buffer '", name_node->text, "'"));
    if (!b->buffer.defined()) return err_.Error(name_node, absl::StrCat("'", name_node->text, "' is not a buffer"));
    return b->buffer;
  }

  absl::StatusOr<Stmt> StoreTo(const AstPtr& target, PrimExpr value) {
    if (target->a->kind != AstKind::kName) return err_.Error(target, "the store target must be a buffer element");
    MLC_ASSIGN_OR_RETURN(buffer, BufferNamed(target->a));
    MLC_ASSIGN_OR_RETURN(indices, Indices(target->b));
    if (indices.size() != buffer->shape.size()) {
      return err_.Error(target, absl::StrCat("store to ", buffer->name, " with ", indices.size(),
                                             " indices, but it has ", buffer->shape.size(), " dimensions"));
    }
    if (value->dtype != buffer->dtype) {
      if (value.as<tir::IntImmNode>() || value.as<tir::FloatImmNode>()) {
        double v = value.as<tir::IntImmNode>() ? static_cast<double>(value.as<tir::IntImmNode>()->value)
                                               : value.as<tir::FloatImmNode>()->value;
        value = tir::Const(buffer->dtype, v);
      } else {
        return err_.Error(target, absl::StrCat("storing a ", value->dtype.ToString(), " value into ", buffer->name,
                                               ", a ", buffer->dtype.ToString(), " buffer (use T.Cast)"));
      }
    }
    return tir::Store(buffer, indices, value);
  }

  absl::StatusOr<Stmt> Assign(const AstPtr& s) {
    const AstPtr& target = s->a;
    const AstPtr& value = s->b;
    if (target->kind == AstKind::kSubscript) {
      MLC_ASSIGN_OR_RETURN(v, Expr(value));
      return StoreTo(target, v);
    }
    std::string callee = value->kind == AstKind::kCall ? TirName(value->a) : "";
    if (target->kind == AstKind::kName && callee == "alloc_buffer") {
      BlockFrame* frame = Frame();
      MLC_ASSIGN_OR_RETURN(buffer, AllocBuffer(target->text, value));
      frame->alloc_buffers.push_back(buffer);
      Define(target->text, Binding{buffer, nullptr});
      return Stmt();
    }
    if (target->kind == AstKind::kName && (callee == "int64" || callee == "int32") && value->elts.empty()) {
      // `n = T.int64()`: a shape variable, bound from the buffers the function is called with.
      Define(target->text,
             Binding{nullptr, tir::MakeVar(target->text, callee == "int64" ? DataType::Int64() : DataType::Int32())});
      return Stmt();
    }
    if (target->kind == AstKind::kName && callee == "match_buffer") return MatchBuffer(target->text, value);
    if (callee == "axis.remap") return AxisRemap(s);
    if (absl::StartsWith(callee, "axis.")) return AxisDecl(s, callee.substr(5));
    return err_.Error(s, absl::StrCat("unsupported assignment in a T.prim_func: expected a buffer store, ",
                                      "T.alloc_buffer or T.axis.*, found ", Describe(value)));
  }

  /*! \brief `X = T.match_buffer(x, (n, 784), "float32")` binds the T.handle parameter x. */
  absl::StatusOr<Stmt> MatchBuffer(const std::string& name, const AstPtr& call) {
    MLC_RETURN_IF_ERROR(CheckArgs(err_, call, "T.match_buffer", 2, 3, {"dtype", "scope", "align", "offset_factor"}));
    const AstPtr& handle = call->elts[0];
    Handle* h = nullptr;
    for (Handle& candidate : handles_) {
      if (handle->kind == AstKind::kName && candidate.name == handle->text) h = &candidate;
    }
    if (h == nullptr || params_ == nullptr || frames_.size() != 1) {
      return err_.Error(call,
                        absl::StrCat("T.match_buffer binds a T.handle parameter at the top of the function; found ",
                                     Describe(handle)));
    }
    if (h->matched) return err_.Error(call, absl::StrCat("parameter ", h->name, " is matched twice"));
    MLC_ASSIGN_OR_RETURN(shape, ParseShape(call->elts[1]));
    DataType dtype = DataType::Float32();
    const AstPtr* dtype_node = call->elts.size() > 2 ? &call->elts[2] : FindKeyword(call, "dtype");
    if (dtype_node != nullptr) {
      MLC_ASSIGN_OR_RETURN(dt, ParseDtype(err_, *dtype_node));
      dtype = dt;
    }
    tir::Buffer buffer = tir::MakeBuffer(name, shape, dtype);
    (*params_)[h->index] = buffer;
    h->matched = true;
    Define(name, Binding{buffer, nullptr});
    return Stmt();
  }

  absl::StatusOr<Stmt> AxisRemap(const AstPtr& s) {
    BlockFrame* frame = Frame();
    if (frames_.size() < 2) return err_.Error(s, "T.axis.remap outside a block");
    const AstPtr& call = s->b;
    MLC_RETURN_IF_ERROR(CheckArgs(err_, call, "T.axis.remap", 2, 2));
    if (call->elts[0]->kind != AstKind::kString)
      return err_.Error(call->elts[0], "expected a kinds string such as \"SSR\"");
    const std::string& kinds = call->elts[0]->text;
    const AstPtr& values = call->elts[1];
    if (values->kind != AstKind::kList && values->kind != AstKind::kTuple)
      return err_.Error(values, "expected a list of loop variables");
    std::vector<AstPtr> targets = s->a->kind == AstKind::kTuple ? s->a->elts : std::vector<AstPtr>{s->a};
    if (targets.size() != kinds.size() || values->elts.size() != kinds.size()) {
      return err_.Error(call, absl::StrCat("T.axis.remap(\"", kinds, "\") binds ", kinds.size(), " variables, but ",
                                           targets.size(), " names and ", values->elts.size(), " values are given"));
    }
    for (size_t i = 0; i < kinds.size(); ++i) {
      if (kinds[i] != 'S' && kinds[i] != 'R')
        return err_.Error(call->elts[0], "kinds must be 'S' (spatial) or 'R' (reduce)");
      if (targets[i]->kind != AstKind::kName) return err_.Error(targets[i], "expected a variable name");
      MLC_ASSIGN_OR_RETURN(value, Expr(values->elts[i]));
      auto range = loop_ranges_.find(value.get());
      if (range == loop_ranges_.end()) {
        return err_.Error(values->elts[i], "T.axis.remap binds loop variables; this is not a loop variable");
      }
      tir::Var var = tir::MakeVar(targets[i]->text, value->dtype);
      frame->iter_vars.push_back(
          {var, range->second, kinds[i] == 'S' ? tir::IterKind::kSpatial : tir::IterKind::kReduce});
      frame->iter_values.push_back(value);
      Define(targets[i]->text, Binding{nullptr, var});
    }
    return Stmt();
  }

  absl::StatusOr<Stmt> AxisDecl(const AstPtr& s, const std::string& kind_name) {
    BlockFrame* frame = Frame();
    if (frames_.size() < 2) return err_.Error(s, "T.axis outside a block");
    tir::IterKind kind;
    if (kind_name == "spatial" || kind_name == "S") {
      kind = tir::IterKind::kSpatial;
    } else if (kind_name == "reduce" || kind_name == "R") {
      kind = tir::IterKind::kReduce;
    } else {
      return err_.Error(s->b, absl::StrCat("unknown T.axis.", kind_name, " (expected spatial, reduce or remap)"));
    }
    if (s->a->kind != AstKind::kName) return err_.Error(s->a, "expected a variable name");
    const AstPtr& call = s->b;
    MLC_RETURN_IF_ERROR(CheckArgs(err_, call, absl::StrCat("T.axis.", kind_name), 2, 2));
    tir::Range dom;
    const AstPtr& dom_node = call->elts[0];
    if (dom_node->kind == AstKind::kTuple && dom_node->elts.size() == 2) {
      MLC_ASSIGN_OR_RETURN(lo, Expr(dom_node->elts[0]));
      MLC_ASSIGN_OR_RETURN(hi, Expr(dom_node->elts[1]));
      dom = {lo, tir::operator-(hi, lo)};
    } else {
      MLC_ASSIGN_OR_RETURN(extent, Expr(dom_node));
      dom = {tir::Const(extent->dtype, 0), extent};
    }
    MLC_ASSIGN_OR_RETURN(value, Expr(call->elts[1]));
    tir::MatchTypes(&dom.extent, &value);
    if (dom.min->dtype != dom.extent->dtype) dom.min = tir::Const(dom.extent->dtype, 0);
    tir::Var var = tir::MakeVar(s->a->text, dom.extent->dtype);
    frame->iter_vars.push_back({var, dom, kind});
    frame->iter_values.push_back(value);
    Define(s->a->text, Binding{nullptr, var});
    return Stmt();
  }

  absl::StatusOr<Stmt> For(const AstPtr& s) {
    const AstPtr& iter = s->a;
    if (iter->kind != AstKind::kCall)
      return err_.Error(iter, "expected T.grid(...), range(...), T.serial/parallel/vectorized/unroll(...)");
    std::string name = DottedName(iter->a);
    std::string tname = TirName(iter->a);
    std::vector<std::pair<PrimExpr, PrimExpr>> ranges;  // (min, extent)
    tir::ForKind kind = tir::ForKind::kSerial;
    Attrs annotations;
    if (tname == "grid") {
      MLC_RETURN_IF_ERROR(CheckArgs(err_, iter, "T.grid", 1, 64));
      for (const AstPtr& e : iter->elts) {
        MLC_ASSIGN_OR_RETURN(extent, Expr(e));
        ranges.push_back({tir::Const(extent->dtype, 0), extent});
      }
    } else if (name == "range" || tname == "serial" || tname == "parallel" || tname == "vectorized" ||
               tname == "unroll") {
      if (tname == "parallel") kind = tir::ForKind::kParallel;
      if (tname == "vectorized") kind = tir::ForKind::kVectorized;
      if (tname == "unroll") kind = tir::ForKind::kUnrolled;
      MLC_RETURN_IF_ERROR(CheckArgs(err_, iter, name, 1, 2, {"annotations"}));
      if (const AstPtr* a = FindKeyword(iter, "annotations")) {
        MLC_ASSIGN_OR_RETURN(parsed, ParseAttrDict(*a));
        annotations = parsed;
      }
      if (iter->elts.size() == 1) {
        MLC_ASSIGN_OR_RETURN(extent, Expr(iter->elts[0]));
        ranges.push_back({tir::Const(extent->dtype, 0), extent});
      } else {
        MLC_ASSIGN_OR_RETURN(lo, Expr(iter->elts[0]));
        MLC_ASSIGN_OR_RETURN(hi, Expr(iter->elts[1]));
        tir::MatchTypes(&lo, &hi);
        ranges.push_back({lo, tir::operator-(hi, lo)});
      }
    } else {
      return err_.Error(iter, absl::StrCat("found ", Describe(iter),
                                           ", expected T.grid(...), range(...) or T.serial/"
                                           "parallel/vectorized/unroll(...)"));
    }
    if (s->elts.size() != ranges.size()) {
      return err_.Error(s,
                        absl::StrCat("the loop names ", s->elts.size(), " variables for ", ranges.size(), " ranges"));
    }
    for (const auto& [min, extent] : ranges) {
      if (!min->dtype.is_integer() || !extent->dtype.is_integer())
        return err_.Error(iter, "loop bounds must be integers");
    }
    PushScope();
    std::vector<tir::Var> vars;
    for (size_t i = 0; i < ranges.size(); ++i) {
      tir::Var v = tir::MakeVar(s->elts[i]->text, ranges[i].second->dtype);
      vars.push_back(v);
      loop_ranges_[v.get()] = {ranges[i].first, ranges[i].second};
      Define(s->elts[i]->text, Binding{nullptr, v});
    }
    MLC_ASSIGN_OR_RETURN(body, Statements(s->body));
    PopScope();
    for (int i = static_cast<int>(vars.size()) - 1; i >= 0; --i) {
      PrimExpr min = ranges[i].first;
      tir::MatchTypes(&min, const_cast<PrimExpr*>(&ranges[i].second));
      body = Stmt(new tir::ForNode(vars[i], min, ranges[i].second, i == 0 ? kind : tir::ForKind::kSerial, body,
                                   i == 0 ? annotations : Attrs()));
    }
    return body;
  }

  absl::StatusOr<Stmt> With(const AstPtr& s) {
    const AstPtr& ctx = s->a;
    std::string name = ctx->kind == AstKind::kCall ? TirName(ctx->a) : "";
    if (name == "init") {
      BlockFrame* frame = Frame();
      if (frames_.size() < 2) return err_.Error(ctx, "T.init() outside a block");
      MLC_RETURN_IF_ERROR(CheckArgs(err_, ctx, "T.init", 0, 0));
      MLC_ASSIGN_OR_RETURN(init, Statements(s->body));
      frame->init = init;
      return Stmt();
    }
    if (name != "block")
      return err_.Error(ctx, absl::StrCat("found ", Describe(ctx), ", expected T.block(...) or T.init()"));
    MLC_RETURN_IF_ERROR(CheckArgs(err_, ctx, "T.block", 0, 1, {"no_realize"}));
    std::string block_name;
    if (!ctx->elts.empty()) {
      if (ctx->elts[0]->kind != AstKind::kString) return err_.Error(ctx->elts[0], "the block name must be a string");
      block_name = ctx->elts[0]->text;
    }
    BlockFrame frame;
    frames_.push_back(&frame);
    PushScope();
    MLC_ASSIGN_OR_RETURN(body, Statements(s->body));
    PopScope();
    frames_.pop_back();
    std::vector<tir::BufferRegion> reads, writes;
    if (!frame.reads || !frame.writes) {
      auto inferred = tir::InferAccessRegions(body, frame.init, frame.alloc_buffers);
      reads = frame.reads ? *frame.reads : inferred.first;
      writes = frame.writes ? *frame.writes : inferred.second;
    } else {
      reads = *frame.reads;
      writes = *frame.writes;
    }
    tir::Block block(new tir::BlockNode(block_name, frame.iter_vars, reads, writes, frame.alloc_buffers, frame.init,
                                        body, frame.annotations));
    PrimExpr pred = frame.predicate.defined() ? frame.predicate : tir::True();
    return Stmt(new tir::BlockRealizeNode(frame.iter_values, pred, block));
  }

  // ---- Expressions.

  absl::StatusOr<std::vector<PrimExpr>> Indices(const AstPtr& node) {
    std::vector<AstPtr> items = node->kind == AstKind::kTuple ? node->elts : std::vector<AstPtr>{node};
    std::vector<PrimExpr> out;
    for (const AstPtr& i : items) {
      if (i->kind == AstKind::kSlice) return err_.Error(i, "slices are allowed only in T.reads / T.writes");
      MLC_ASSIGN_OR_RETURN(e, Expr(i));
      if (!e->dtype.is_integer()) return err_.Error(i, "buffer indices must be integers");
      out.push_back(e);
    }
    return out;
  }

  absl::StatusOr<PrimExpr> Binary(const AstPtr& at, const std::string& op, PrimExpr a, PrimExpr b) {
    using namespace tir;  // NOLINT
    if (op == "+") return a + b;
    if (op == "-") return a - b;
    if (op == "*") return a * b;
    if (op == "/") return a / b;
    if (op == "//") return FloorDiv(a, b);
    if (op == "%") return FloorMod(a, b);
    if (op == "**") {
      MatchTypes(&a, &b);
      return Intrinsic("pow", {a, b});
    }
    if (op == "<") return a < b;
    if (op == "<=") return a <= b;
    if (op == ">") return a > b;
    if (op == ">=") return a >= b;
    if (op == "==") return Eq(a, b);
    if (op == "!=") return Ne(a, b);
    if (op == "and") return a && b;
    if (op == "or") return a || b;
    return err_.Error(at, absl::StrCat("unsupported operator '", op, "'"));
  }

 public:
  absl::StatusOr<PrimExpr> Expr(const AstPtr& node) {
    switch (node->kind) {
      case AstKind::kInt:
        if (node->int_value > INT32_MAX || node->int_value < INT32_MIN) return tir::I64(node->int_value);
        return tir::I32(node->int_value);
      case AstKind::kFloat: return tir::F32(node->float_value);
      case AstKind::kBool: return IntImm(DataType::Bool(), node->int_value);
      case AstKind::kName: {
        const Binding* b = Lookup(node->text);
        if (b == nullptr) return err_.Error(node, absl::StrCat("undefined variable '", node->text, "'"));
        if (!b->var.defined())
          return err_.Error(node, absl::StrCat("buffer '", node->text, "' used as a value; index it"));
        return PrimExpr(b->var);
      }
      case AstKind::kSubscript: {
        if (node->a->kind != AstKind::kName) return err_.Error(node, "only buffers can be indexed");
        MLC_ASSIGN_OR_RETURN(buffer, BufferNamed(node->a));
        MLC_ASSIGN_OR_RETURN(indices, Indices(node->b));
        if (indices.size() != buffer->shape.size()) {
          return err_.Error(node, absl::StrCat("load from ", buffer->name, " with ", indices.size(),
                                               " indices, but it has ", buffer->shape.size(), " dimensions"));
        }
        return tir::Load(buffer, indices);
      }
      case AstKind::kBinOp:
      case AstKind::kCompare:
      case AstKind::kBoolOp: {
        MLC_ASSIGN_OR_RETURN(a, Expr(node->a));
        MLC_ASSIGN_OR_RETURN(b, Expr(node->b));
        return Binary(node, node->text, a, b);
      }
      case AstKind::kUnaryOp: {
        MLC_ASSIGN_OR_RETURN(a, Expr(node->a));
        if (node->text == "-") return tir::operator-(a);
        if (node->text == "not") return tir::operator!(a);
        return a;
      }
      case AstKind::kCall: return Call(node);
      default: return err_.Error(node, absl::StrCat("found ", Describe(node), ", expected a scalar expression"));
    }
  }

 private:
  absl::StatusOr<PrimExpr> Call(const AstPtr& node) {
    std::string name = TirName(node->a);
    if (name.empty()) {
      return err_.Error(
          node, absl::StrCat("found ", Describe(node), ", expected a T.* function (T.max, T.exp, T.float32, ...)"));
    }
    // Typed literals and casts: T.float32(0), T.int64(1), T.bool(True).
    absl::StatusOr<DataType> typed = DataType::Parse(name);
    if (typed.ok() && !typed->is_void() && !typed->is_handle()) {
      MLC_RETURN_IF_ERROR(CheckArgs(err_, node, absl::StrCat("T.", name), 1, 1));
      const AstPtr& arg = node->elts[0];
      const AstPtr* lit = &arg;
      bool negate = false;
      if (arg->kind == AstKind::kUnaryOp && arg->text == "-" &&
          (arg->a->kind == AstKind::kInt || arg->a->kind == AstKind::kFloat)) {
        lit = &arg->a;
        negate = true;
      }
      if ((*lit)->kind == AstKind::kInt || (*lit)->kind == AstKind::kFloat || (*lit)->kind == AstKind::kBool) {
        double v = (*lit)->kind == AstKind::kFloat ? (*lit)->float_value : static_cast<double>((*lit)->int_value);
        if (negate) v = -v;
        if (typed->is_float()) return FloatImm(*typed, v);
        if ((*lit)->kind == AstKind::kFloat) return err_.Error(arg, absl::StrCat("T.", name, " of a float literal"));
        int64_t iv = (*lit)->int_value * (negate ? -1 : 1);
        return IntImm(*typed, iv);
      }
      if ((*lit)->kind == AstKind::kString && typed->is_float()) {
        const std::string& t = (*lit)->text;
        if (t == "inf" || t == "-inf" || t == "nan") {
          double v = t == "nan" ? std::nan("") : (t == "inf" ? HUGE_VAL : -HUGE_VAL);
          return FloatImm(*typed, v);
        }
      }
      MLC_ASSIGN_OR_RETURN(v, Expr(arg));
      return tir::Cast(*typed, v);
    }
    if (name == "max" || name == "min") {
      MLC_RETURN_IF_ERROR(CheckArgs(err_, node, absl::StrCat("T.", name), 2, 2));
      MLC_ASSIGN_OR_RETURN(a, Expr(node->elts[0]));
      MLC_ASSIGN_OR_RETURN(b, Expr(node->elts[1]));
      return name == "max" ? tir::Max(a, b) : tir::Min(a, b);
    }
    if (name == "floordiv" || name == "floormod" || name == "truncmod" || name == "truncdiv") {
      MLC_RETURN_IF_ERROR(CheckArgs(err_, node, absl::StrCat("T.", name), 2, 2));
      MLC_ASSIGN_OR_RETURN(a, Expr(node->elts[0]));
      MLC_ASSIGN_OR_RETURN(b, Expr(node->elts[1]));
      if (name == "floordiv") return tir::FloorDiv(a, b);
      if (name == "floormod") return tir::FloorMod(a, b);
      tir::MatchTypes(&a, &b);
      return tir::MakeBinary(name == "truncmod" ? NodeKind::kMod : NodeKind::kDiv, a, b);
    }
    if (name == "Cast") {
      MLC_RETURN_IF_ERROR(CheckArgs(err_, node, "T.Cast", 2, 2));
      MLC_ASSIGN_OR_RETURN(dtype, ParseDtype(err_, node->elts[0]));
      MLC_ASSIGN_OR_RETURN(v, Expr(node->elts[1]));
      return PrimExpr(new tir::CastNode(dtype, v));
    }
    if (name == "Select" || name == "if_then_else") {
      MLC_RETURN_IF_ERROR(CheckArgs(err_, node, absl::StrCat("T.", name), 3, 3));
      MLC_ASSIGN_OR_RETURN(c, Expr(node->elts[0]));
      MLC_ASSIGN_OR_RETURN(t, Expr(node->elts[1]));
      MLC_ASSIGN_OR_RETURN(f, Expr(node->elts[2]));
      return tir::Select(c, t, f);
    }
    std::string intrinsic = name == "abs" ? "fabs" : name;
    if (const tir::IntrinsicInfo* info = tir::LookupIntrinsic(intrinsic)) {
      if (info->num_args >= 0)
        MLC_RETURN_IF_ERROR(CheckArgs(err_, node, absl::StrCat("T.", name), info->num_args, info->num_args));
      std::vector<PrimExpr> args;
      for (const AstPtr& a : node->elts) {
        MLC_ASSIGN_OR_RETURN(e, Expr(a));
        args.push_back(e);
      }
      if (args.size() == 2) tir::MatchTypes(&args[0], &args[1]);
      return tir::Intrinsic(intrinsic, args);
    }
    return err_.Error(node->a, absl::StrCat("unknown function T.", name));
  }

  const ErrorReporter& err_;
  std::vector<std::map<std::string, Binding>> scopes_;
  std::vector<BlockFrame*> frames_;
};

// =============================================================================================
// Graph level.

/*! \brief Names a function body refers to (for ordering callees before callers). */
void CollectNames(const AstPtr& node, std::set<std::string>* out) {
  if (node == nullptr) return;
  if (node->kind == AstKind::kName) out->insert(node->text);
  if (node->kind == AstKind::kAttribute && node->a && node->a->kind == AstKind::kName && node->a->text == "cls") {
    out->insert(node->text);
  }
  for (const AstPtr* child : {&node->a, &node->b, &node->c}) CollectNames(*child, out);
  for (const AstPtr& e : node->elts) CollectNames(e, out);
  for (const Keyword& k : node->keywords) CollectNames(k.value, out);
  for (const AstPtr& s : node->body) CollectNames(s, out);
  for (const AstPtr& s : node->orelse) CollectNames(s, out);
}

class RelaxConverter {
 public:
  RelaxConverter(const ErrorReporter& err, const IRModule& mod, const std::set<std::string>& function_names,
                 const std::set<std::string>& prim_func_names, const std::string& class_name,
                 const std::optional<std::vector<TensorData>>& constants,
                 std::map<int64_t, relax::Expr>* constant_cache)
      : err_(err),
        mod_(mod),
        function_names_(function_names),
        prim_func_names_(prim_func_names),
        class_name_(class_name),
        constants_(constants),
        constant_cache_(constant_cache) {}

  /*! \brief The signature alone (parameters and declared result) with an empty body, for the
   *         calls of a function converted before its body is (it calls itself, directly or not). */
  absl::StatusOr<relax::Function> Declare(const AstPtr& def) {
    MLC_ASSIGN_OR_RETURN(params, Params(def));
    if (def->a == nullptr || def->a->kind == AstKind::kNone) {
      return err_.Error(def, absl::StrCat("function ", def->text,
                                          " calls itself (directly or through others) and needs a return annotation"));
    }
    defining_shape_vars_ = true;
    MLC_ASSIGN_OR_RETURN(ret, ParseStructInfo(err_, def->a));
    defining_shape_vars_ = false;
    return relax::MakeFunction(params, relax::SeqExpr(new relax::SeqExprNode({}, relax::MakeTuple({}))), ret);
  }

  absl::StatusOr<relax::Function> Convert(const AstPtr& def, bool is_private) {
    MLC_ASSIGN_OR_RETURN(params, Params(def));
    defining_shape_vars_ = true;
    StructInfo declared_ret;
    if (def->a != nullptr && def->a->kind != AstKind::kNone) {
      MLC_ASSIGN_OR_RETURN(ret, ParseStructInfo(err_, def->a));
      declared_ret = ret;
    }
    defining_shape_vars_ = false;
    return ConvertBody(def, is_private, params, declared_ret);
  }

  /*! \brief The parameters, which define the shape variables of their annotations. */
  absl::StatusOr<std::vector<relax::Var>> Params(const AstPtr& def) {
    std::vector<relax::Var> params;
    defining_shape_vars_ = true;
    for (const Param& p : def->params) {
      if (p.annotation == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat(err_.filename(), ":", p.line, ":", p.col, ": parameter ", p.name,
                         " needs a struct info annotation such as R.Tensor((1, 784), \"float32\")"));
      }
      MLC_ASSIGN_OR_RETURN(sinfo, ParseStructInfo(err_, p.annotation));
      relax::Var v = relax::MakeVar(p.name, sinfo);
      if (vars_.count(p.name)) return err_.Error(def, absl::StrCat("parameter ", p.name, " appears twice"));
      vars_[p.name] = v;
      params.push_back(v);
    }
    defining_shape_vars_ = false;
    return params;
  }

  absl::StatusOr<relax::Function> ConvertBody(const AstPtr& def, bool is_private, const std::vector<relax::Var>& params,
                                              const StructInfo& declared_ret) {
    Attrs attrs;
    relax::Expr result;
    const std::vector<AstPtr>& body = def->body;
    for (size_t i = 0; i < body.size(); ++i) {
      const AstPtr& s = body[i];
      if (result.defined()) return err_.Error(s, "statement after `return`");
      switch (s->kind) {
        case AstKind::kPass:
        case AstKind::kImport: break;
        case AstKind::kExprStmt: {
          const AstPtr& e = s->a;
          if (e->kind == AstKind::kString) break;
          if (e->kind == AstKind::kCall && RelaxName(e->a) == "func_attr") {
            MLC_RETURN_IF_ERROR(CheckArgs(err_, e, "R.func_attr", 1, 1));
            MLC_ASSIGN_OR_RETURN(parsed, TirConverter::AttrDictOf(err_, e->elts[0]));
            for (auto& [k, v] : parsed) attrs[k] = v;
            break;
          }
          if (e->kind == AstKind::kCall && RelaxName(e->a) == "output") {
            return err_.Error(e, "R.output outside a dataflow block");
          }
          return err_.Error(e, absl::StrCat("found ", Describe(e), ", expected a binding `name = value`"));
        }
        case AstKind::kAssign:
        case AstKind::kAnnAssign: {
          // `cls = Module` names the module for cls.f references.
          if (s->kind == AstKind::kAssign && s->a->kind == AstKind::kName && s->a->text == "cls" &&
              s->b->kind == AstKind::kName) {
            break;
          }
          // `n = T.int64()` names a shape variable for the body: one the signature defines, or
          // one an R.match_cast below defines.
          if (s->kind == AstKind::kAssign && s->a->kind == AstKind::kName && s->b->kind == AstKind::kCall &&
              TirName(s->b->a) == "int64" && s->b->elts.empty()) {
            if (!shape_vars_.count(s->a->text)) declared_shape_vars_.insert(s->a->text);
            break;
          }
          MLC_RETURN_IF_ERROR(Binding(s, /*dataflow=*/false, {}));
          break;
        }
        case AstKind::kWith:
          MLC_RETURN_IF_ERROR(DataflowBlock(s, std::vector<AstPtr>(body.begin() + i + 1, body.end())));
          break;
        case AstKind::kIf: MLC_RETURN_IF_ERROR(IfBinding(s)); break;
        case AstKind::kReturn: {
          if (s->a == nullptr) return err_.Error(s, "a graph function must return a value");
          MLC_ASSIGN_OR_RETURN(value, Expr(s->a));
          FlushPlainBlock();
          result = value;
          break;
        }
        default:
          return err_.Error(
              s, "unsupported statement in an R.function (expected bindings, R.dataflow() blocks and return)");
      }
    }
    if (!result.defined()) return err_.Error(def, absl::StrCat("function ", def->text, " has no return statement"));
    FlushPlainBlock();
    relax::SeqExpr seq(new relax::SeqExprNode(blocks_, result));
    StructInfo ret = relax::EraseShapeVars(seq->struct_info(), relax::ParamShapeVars(params));
    if (declared_ret.defined()) {
      if (!relax::IsBaseOf(declared_ret, ret)) {
        return err_.Error(def->a, absl::StrCat("function ", def->text, " declares it returns ",
                                               relax::StructInfoToString(declared_ret), " but returns ",
                                               relax::StructInfoToString(ret)));
      }
      // A declared result less specific than the body's (the older printer wrote
      // `-> Tensor(None, "float32", ndim = 2)`) is refined to what the body returns, so callers
      // see the static shape.
    }
    if (!is_private) {
      if (!attrs.count("global_symbol")) attrs["global_symbol"] = def->text;
    } else {
      attrs.erase("global_symbol");
    }
    return relax::MakeFunction(params, seq, ret, attrs);
  }

  /*! \brief Struct info annotations: R.Tensor(...), Tensor(...), R.Tuple, R.Shape, R.Object, R.Prim. */
  absl::StatusOr<StructInfo> ParseStructInfo(const ErrorReporter& err, const AstPtr& node) {
    std::string dotted = DottedName(node->kind == AstKind::kCall ? node->a : node);
    std::string name = StripPrefix(dotted, {"R", "relax"});
    if (name.empty()) name = dotted;
    const bool is_call = node->kind == AstKind::kCall;
    if (name == "Tensor") {
      if (!is_call) return relax::TensorSInfoUnknownShape(DataType::Void(), -1);
      MLC_RETURN_IF_ERROR(CheckArgs(err, node, "R.Tensor", 0, 2, {"dtype", "ndim"}));
      std::optional<std::vector<tir::PrimExpr>> shape;
      DataType dtype = DataType::Void();
      int ndim = -1;
      if (!node->elts.empty() && node->elts[0]->kind != AstKind::kNone) {
        const AstPtr& s = node->elts[0];
        if (s->kind != AstKind::kTuple && s->kind != AstKind::kList) {
          if (s->kind == AstKind::kString && node->elts.size() == 1) {
            MLC_ASSIGN_OR_RETURN(dt, ParseDtype(err, s));
            dtype = dt;
          } else {
            return err.Error(s, absl::StrCat("found ", Describe(s), ", expected a shape tuple such as (1, 784)"));
          }
        } else {
          MLC_ASSIGN_OR_RETURN(dims, DimList(err, s));
          shape = dims;
          ndim = static_cast<int>(shape->size());
        }
      }
      if (node->elts.size() > 1) {
        MLC_ASSIGN_OR_RETURN(dt, ParseDtype(err, node->elts[1]));
        dtype = dt;
      }
      if (const AstPtr* kw = FindKeyword(node, "dtype")) {
        MLC_ASSIGN_OR_RETURN(dt, ParseDtype(err, *kw));
        dtype = dt;
      }
      if (const AstPtr* kw = FindKeyword(node, "ndim")) {
        if ((*kw)->kind != AstKind::kInt) return err.Error(*kw, "ndim must be an integer");
        if (shape && static_cast<int64_t>(shape->size()) != (*kw)->int_value) {
          return err.Error(*kw, "ndim disagrees with the shape");
        }
        ndim = static_cast<int>((*kw)->int_value);
      }
      if (shape) return relax::TensorSInfoOfDims(*shape, dtype);
      return StructInfo(new relax::TensorStructInfoNode(std::nullopt, dtype, ndim));
    }
    if (name == "Tuple") {
      std::vector<StructInfo> fields;
      if (is_call) {
        std::vector<AstPtr> items = node->elts;
        if (items.size() == 1 && (items[0]->kind == AstKind::kList || items[0]->kind == AstKind::kTuple))
          items = items[0]->elts;
        for (const AstPtr& f : items) {
          MLC_ASSIGN_OR_RETURN(s, ParseStructInfo(err, f));
          fields.push_back(s);
        }
      }
      return relax::TupleSInfo(fields);
    }
    if (name == "Shape") {
      if (!is_call) return StructInfo(new relax::ShapeStructInfoNode(-1, std::nullopt));
      MLC_RETURN_IF_ERROR(CheckArgs(err, node, "R.Shape", 0, 1, {"ndim"}));
      if (!node->elts.empty()) {
        MLC_ASSIGN_OR_RETURN(values, DimList(err, node->elts[0]));
        return relax::ShapeSInfo(values);
      }
      const AstPtr* kw = FindKeyword(node, "ndim");
      return StructInfo(new relax::ShapeStructInfoNode(kw ? static_cast<int>((*kw)->int_value) : -1, std::nullopt));
    }
    if (name == "Object") return relax::ObjectSInfo();
    if (name == "Prim") {
      if (!is_call) return err.Error(node, "R.Prim needs a dtype");
      MLC_RETURN_IF_ERROR(CheckArgs(err, node, "R.Prim", 0, 1, {"dtype"}));
      const AstPtr* d = node->elts.empty() ? FindKeyword(node, "dtype") : &node->elts[0];
      if (d == nullptr) return err.Error(node, "R.Prim needs a dtype");
      MLC_ASSIGN_OR_RETURN(dt, ParseDtype(err, *d));
      return relax::PrimSInfo(dt);
    }
    return err.Error(node, absl::StrCat("found ", Describe(node),
                                        ", expected struct info such as R.Tensor((1, 784), "
                                        "dtype=\"float32\"), R.Tuple(...), R.Shape([...]) or R.Object"));
  }

 private:
  void FlushPlainBlock() {
    if (plain_.empty()) return;
    blocks_.push_back(relax::BindingBlock(new relax::BindingBlockNode(std::move(plain_), false)));
    plain_.clear();
  }

  /*! \brief `with R.dataflow():`, its bindings and R.output; `rest` is what follows the block,
   *         so that a variable used there is an output even if R.output omits it. */
  absl::Status DataflowBlock(const AstPtr& s, const std::vector<AstPtr>& rest) {
    const AstPtr& ctx = s->a;
    if (ctx->kind != AstKind::kCall || RelaxName(ctx->a) != "dataflow") {
      return err_.Error(ctx, absl::StrCat("found ", Describe(ctx), ", expected R.dataflow()"));
    }
    MLC_RETURN_IF_ERROR(CheckArgs(err_, ctx, "R.dataflow", 0, 0));
    std::set<std::string> outputs;
    bool saw_output = false;
    for (const AstPtr& st : s->body) {
      if (st->kind == AstKind::kExprStmt && st->a->kind == AstKind::kCall && RelaxName(st->a->a) == "output") {
        saw_output = true;
        for (const AstPtr& o : st->a->elts) {
          if (o->kind != AstKind::kName) return err_.Error(o, "R.output takes variable names");
          outputs.insert(o->text);
        }
      }
    }
    std::set<std::string> used_later;
    for (const AstPtr& r : rest) CollectNames(r, &used_later);
    FlushPlainBlock();
    std::vector<relax::VarBinding> bindings;
    std::set<std::string> bound_here;
    for (const AstPtr& st : s->body) {
      switch (st->kind) {
        case AstKind::kPass: break;
        case AstKind::kExprStmt:
          if (st->a->kind == AstKind::kString) break;
          if (st->a->kind == AstKind::kCall && RelaxName(st->a->a) == "output") {
            for (const AstPtr& o : st->a->elts) {
              if (!bound_here.count(o->text)) {
                return err_.Error(
                    o, absl::StrCat("R.output(", o->text, "): ", o->text, " is not bound in this dataflow block"));
              }
            }
            break;
          }
          return err_.Error(st->a, absl::StrCat("found ", Describe(st->a), ", expected a binding or R.output(...)"));
        case AstKind::kAssign:
        case AstKind::kAnnAssign: {
          if (st->a->kind != AstKind::kName) return err_.Error(st->a, "binding targets must be names");
          const std::string& name = st->a->text;
          bool is_output = outputs.count(name) || used_later.count(name);
          MLC_RETURN_IF_ERROR(Binding(st, /*dataflow=*/!is_output, &bindings));
          bound_here.insert(name);
          break;
        }
        default: return err_.Error(st, "only bindings and R.output are allowed inside R.dataflow()");
      }
    }
    if (!saw_output && !s->body.empty() && outputs.empty()) {
      // No R.output: variables used later still leave the block (see above).
    }
    blocks_.push_back(relax::BindingBlock(new relax::BindingBlockNode(std::move(bindings), true)));
    return absl::OkStatus();
  }

  absl::Status Binding(const AstPtr& s, bool dataflow, std::vector<relax::VarBinding>* out) {
    if (s->a->kind != AstKind::kName)
      return err_.Error(s->a, "binding targets must be names (tuple unpacking is not supported)");
    if (s->b == nullptr) return err_.Error(s, "an annotated binding needs a value");
    const std::string& name = s->a->text;
    MLC_ASSIGN_OR_RETURN(value, Expr(s->b));
    MLC_ASSIGN_OR_RETURN(sinfo, AnnotatedStructInfo(s, name, value->struct_info()));
    if (vars_.count(name)) return err_.Error(s->a, absl::StrCat("variable ", name, " is defined twice"));
    relax::Var var = dataflow ? relax::MakeDataflowVar(name, sinfo) : relax::MakeVar(name, sinfo);
    vars_[name] = var;
    relax::VarBinding binding(new relax::VarBindingNode(var, value));
    if (out != nullptr) {
      out->push_back(binding);
    } else {
      plain_.push_back(binding);
    }
    return absl::OkStatus();
  }

  /*! \brief `sinfo` (the value's), or the binding's annotation, which must admit it. */
  absl::StatusOr<StructInfo> AnnotatedStructInfo(const AstPtr& s, const std::string& name, StructInfo sinfo) {
    if (s->kind != AstKind::kAnnAssign) return sinfo;
    MLC_ASSIGN_OR_RETURN(ann, ParseStructInfo(err_, s->c));
    if (!relax::IsBaseOf(ann, sinfo)) {
      return err_.Error(s->c, absl::StrCat(name, " is annotated ", relax::StructInfoToString(ann), " but its value is ",
                                           relax::StructInfoToString(sinfo)));
    }
    return ann;
  }

  /*! \brief `if cond:` / `else:`, each branch one binding of the same name (TVMScript's form of
   *         a graph-level if): `y = then_value` and `y = else_value` bind y to relax::If. */
  absl::Status IfBinding(const AstPtr& s) {
    auto branch_binding = [&](const std::vector<AstPtr>& stmts, const AstPtr& at,
                              const char* which) -> absl::StatusOr<AstPtr> {
      if (stmts.size() != 1 || (stmts[0]->kind != AstKind::kAssign && stmts[0]->kind != AstKind::kAnnAssign) ||
          stmts[0]->a->kind != AstKind::kName || stmts[0]->b == nullptr) {
        return err_.Error(
            stmts.empty() ? at : stmts[0],
            absl::StrCat("the ", which, " branch of an if in an R.function must be one binding `name = value` ",
                         "(call a function for more)"));
      }
      return stmts[0];
    };
    if (s->orelse.empty())
      return err_.Error(s, "an if in an R.function needs an else branch binding the same variable");
    MLC_ASSIGN_OR_RETURN(then_binding, branch_binding(s->body, s, "true"));
    MLC_ASSIGN_OR_RETURN(else_binding, branch_binding(s->orelse, s, "false"));
    const std::string& name = then_binding->a->text;
    if (else_binding->a->text != name) {
      return err_.Error(else_binding->a, absl::StrCat("both branches of an if must bind the same variable: ", name,
                                                      " and ", else_binding->a->text));
    }
    MLC_ASSIGN_OR_RETURN(cond, Expr(s->a));
    MLC_ASSIGN_OR_RETURN(then_value, Expr(then_binding->b));
    MLC_ASSIGN_OR_RETURN(else_value, Expr(else_binding->b));
    relax::If value(new relax::IfNode(cond, then_value, else_value));
    StructInfo sinfo = value->struct_info();
    for (const AstPtr& b : {then_binding, else_binding}) {
      MLC_ASSIGN_OR_RETURN(annotated, AnnotatedStructInfo(b, name, sinfo));
      sinfo = annotated;
    }
    if (vars_.count(name)) return err_.Error(then_binding->a, absl::StrCat("variable ", name, " is defined twice"));
    relax::Var var = relax::MakeVar(name, sinfo);
    vars_[name] = var;
    plain_.push_back(relax::VarBinding(new relax::VarBindingNode(var, value)));
    return absl::OkStatus();
  }

  absl::StatusOr<relax::Expr> Normalize(const AstPtr& at, relax::Call call) {
    absl::StatusOr<StructInfo> sinfo = relax::InferCallStructInfo(*call, &mod_);
    if (!sinfo.ok()) return err_.Error(at, std::string(sinfo.status().message()));
    call->SetStructInfoOnce(*sinfo);
    return relax::Expr(call);
  }

  /*! \brief A global function reference: bare name or cls.name. */
  std::string GlobalName(const AstPtr& node) const {
    if (node->kind == AstKind::kName && (function_names_.count(node->text) || prim_func_names_.count(node->text)) &&
        !vars_.count(node->text)) {
      return node->text;
    }
    if (node->kind == AstKind::kAttribute && node->a->kind == AstKind::kName &&
        (node->a->text == "cls" || node->a->text == class_name_)) {
      return node->text;
    }
    return "";
  }

  absl::StatusOr<relax::Expr> Expr(const AstPtr& node) {
    switch (node->kind) {
      case AstKind::kName: {
        auto it = vars_.find(node->text);
        if (it != vars_.end()) return relax::Expr(it->second);
        std::string global = GlobalName(node);
        if (!global.empty()) return relax::Expr(relax::MakeGlobalVar(global));
        return err_.Error(node, absl::StrCat("undefined variable '", node->text, "'"));
      }
      case AstKind::kAttribute: {
        std::string global = GlobalName(node);
        if (!global.empty()) {
          if (!function_names_.count(global) && !prim_func_names_.count(global)) {
            return err_.Error(node, absl::StrCat("the module has no function '", global, "'"));
          }
          return relax::Expr(relax::MakeGlobalVar(global));
        }
        return err_.Error(node, absl::StrCat("found ", Describe(node), ", expected a variable or cls.function"));
      }
      case AstKind::kTuple: {
        std::vector<relax::Expr> fields;
        for (const AstPtr& e : node->elts) {
          MLC_ASSIGN_OR_RETURN(f, Expr(e));
          fields.push_back(f);
        }
        return relax::MakeTuple(fields);
      }
      case AstKind::kSubscript: return Subscript(node);
      case AstKind::kCall: return Call(node);
      default: return err_.Error(node, absl::StrCat("found ", Describe(node), ", expected a graph-level expression"));
    }
  }

  /*! \brief metadata["relax.expr.Constant"][i], meta[relay.Constant][i], or tuple[i]. */
  absl::StatusOr<relax::Expr> Subscript(const AstPtr& node) {
    const AstPtr& inner = node->a;
    if (inner->kind == AstKind::kSubscript && inner->a->kind == AstKind::kName &&
        (inner->a->text == "metadata" || inner->a->text == "meta")) {
      std::string key = inner->b->kind == AstKind::kString ? inner->b->text : DottedName(inner->b);
      if (key != "relax.expr.Constant" && key != "relay.Constant") {
        return err_.Error(inner->b,
                          absl::StrCat("unknown metadata section '", key, "' (expected \"relax.expr.Constant\")"));
      }
      if (node->b->kind != AstKind::kInt) return err_.Error(node->b, "the metadata index must be an integer");
      int64_t index = node->b->int_value;
      if (!constants_) {
        return err_.Error(node,
                          absl::StrCat("metadata[\"relax.expr.Constant\"][", index, "] is referenced but the module ",
                                       "has no metadata section; print it with --show_meta, or pass the constants ",
                                       "with --metadata"));
      }
      if (index < 0 || index >= static_cast<int64_t>(constants_->size())) {
        return err_.Error(node->b, absl::StrCat("metadata index ", index, " is out of range: the metadata holds ",
                                                constants_->size(), " constants"));
      }
      auto cached = constant_cache_->find(index);
      if (cached != constant_cache_->end()) return cached->second;
      relax::Expr c = relax::MakeConstant((*constants_)[index]);
      (*constant_cache_)[index] = c;
      return c;
    }
    MLC_ASSIGN_OR_RETURN(tuple, Expr(node->a));
    if (node->b->kind != AstKind::kInt) return err_.Error(node->b, "tuple indices must be integer literals");
    absl::StatusOr<relax::Expr> item = relax::MakeTupleGetItem(tuple, static_cast<int>(node->b->int_value));
    if (!item.ok()) return err_.Error(node, std::string(item.status().message()));
    return item;
  }

  absl::StatusOr<relax::Expr> Call(const AstPtr& node) {
    std::string global = GlobalName(node->a);
    if (!global.empty()) {
      if (prim_func_names_.count(global)) {
        return err_.Error(node, absl::StrCat(global, " is a T.prim_func; call it with R.call_tir(", global,
                                             ", (args...), out_sinfo=...)"));
      }
      std::vector<relax::Expr> args;
      for (const AstPtr& a : node->elts) {
        MLC_ASSIGN_OR_RETURN(e, Expr(a));
        args.push_back(e);
      }
      if (!node->keywords.empty())
        return err_.Error(node->keywords[0].value, "graph functions take no keyword arguments");
      return Normalize(node, relax::MakeCall(relax::MakeGlobalVar(global), args));
    }
    std::string name = RelaxName(node->a);
    if (name.empty()) {
      return err_.Error(
          node->a, absl::StrCat("found ", Describe(node), ", expected an R.* operator or a function of the module"));
    }
    if (name == "call_tir" || name == "call_dps_packed" || name == "call_pure_packed") return CallDps(node, name);
    if (name == "call_packed") return CallPacked(node);
    if (name == "shape") {
      MLC_RETURN_IF_ERROR(CheckArgs(err_, node, "R.shape", 1, 1));
      MLC_ASSIGN_OR_RETURN(values, DimList(err_, node->elts[0]));
      return relax::MakeShapeExpr(values);
    }
    if (name == "ExternFunc") {
      MLC_RETURN_IF_ERROR(CheckArgs(err_, node, "R.ExternFunc", 1, 1));
      if (node->elts[0]->kind != AstKind::kString) return err_.Error(node->elts[0], "expected a function name string");
      return relax::MakeExternFunc(node->elts[0]->text);
    }
    if (name == "const") return Const(node);
    if (name == "match_cast") return MatchCast(node);
    if (name == "output") return err_.Error(node, "R.output must be a statement at the end of a dataflow block");
    if (name == "dataflow") return err_.Error(node, "R.dataflow() must be used as `with R.dataflow():`");
    if (absl::StartsWith(name, "op.")) name = name.substr(3);
    absl::StatusOr<relax::Op> op = relax::GetOp(name);
    if (!op.ok()) return err_.Error(node->a, absl::StrCat("unknown operator R.", name));
    const relax::OpInfo& info = (*op)->info();
    std::vector<relax::Expr> args;
    Attrs attrs;
    size_t num_inputs = info.num_inputs >= 0 ? static_cast<size_t>(info.num_inputs) : node->elts.size();
    for (size_t i = 0; i < node->elts.size(); ++i) {
      if (i < num_inputs) {
        if (name == "alloc_tensor" && i == 0 &&
            (node->elts[0]->kind == AstKind::kTuple || node->elts[0]->kind == AstKind::kList)) {
          MLC_ASSIGN_OR_RETURN(values, DimList(err_, node->elts[0]));
          args.push_back(relax::MakeShapeExpr(values));
          continue;
        }
        MLC_ASSIGN_OR_RETURN(e, Expr(node->elts[i]));
        args.push_back(e);
      } else {
        size_t attr_index = i - num_inputs;
        if (attr_index >= info.attrs.size()) {
          return err_.Error(node->elts[i],
                            absl::StrCat("R.", name, " takes ", num_inputs, " arguments",
                                         info.attrs.empty() ? "" : " and attributes", ", got ", node->elts.size()));
        }
        MLC_ASSIGN_OR_RETURN(v, OpAttr(info, info.attrs[attr_index], node->elts[i]));
        attrs[info.attrs[attr_index].name] = v;
      }
    }
    std::vector<StructInfo> sinfo_args;
    for (const Keyword& kw : node->keywords) {
      if (kw.name == "sinfo_args") {  // the result's struct info, for operators that take it (reshape to symbolic dims)
        MLC_ASSIGN_OR_RETURN(si, ParseStructInfo(err_, kw.value));
        sinfo_args.push_back(si);
        continue;
      }
      const relax::OpAttrSpec* spec = nullptr;
      for (const relax::OpAttrSpec& s : info.attrs) {
        if (s.name == kw.name) spec = &s;
      }
      if (spec == nullptr) {
        std::vector<std::string> known;
        for (const relax::OpAttrSpec& s : info.attrs) known.push_back(s.name);
        return err_.Error(
            kw.value,
            absl::StrCat("R.", name, " has no attribute '", kw.name, "'",
                         known.empty() ? "" : absl::StrCat(" (attributes: ", absl::StrJoin(known, ", "), ")")));
      }
      MLC_ASSIGN_OR_RETURN(v, OpAttr(info, *spec, kw.value));
      attrs[kw.name] = v;
    }
    // Attributes left at their defaults are not stored, so both spellings compare equal.
    for (const relax::OpAttrSpec& spec : info.attrs) {
      auto it = attrs.find(spec.name);
      if (it != attrs.end() && it->second == spec.default_value) attrs.erase(it);
    }
    return Normalize(node, relax::MakeCall(*op, args, attrs, sinfo_args));
  }

  /*! \brief R.match_cast(value, struct_info): the struct info's new shape variables are
   *         defined here, spelled bare (declared with T.int64()) or quoted. */
  absl::StatusOr<relax::Expr> MatchCast(const AstPtr& node) {
    MLC_RETURN_IF_ERROR(CheckArgs(err_, node, "R.match_cast", 2, 2));
    MLC_ASSIGN_OR_RETURN(value, Expr(node->elts[0]));
    defining_shape_vars_ = true;
    absl::StatusOr<StructInfo> target = ParseStructInfo(err_, node->elts[1]);
    defining_shape_vars_ = false;
    if (!target.ok()) return target.status();
    return Normalize(node, relax::MakeCall(relax::GetOpOrDie("match_cast"), {value}, {}, {*target}));
  }

  absl::StatusOr<AttrValue> OpAttr(const relax::OpInfo& info, const relax::OpAttrSpec& spec, const AstPtr& value) {
    if (value->kind == AstKind::kNone) return AttrValue();
    if (spec.type == "dtype") {
      MLC_ASSIGN_OR_RETURN(dt, ParseDtype(err_, value));
      return AttrValue(dt);
    }
    MLC_ASSIGN_OR_RETURN(v, TirConverter::AttrLiteralOf(err_, value));
    bool ok = (spec.type == "int" && v.is<int64_t>()) || (spec.type == "int[]" && v.is<std::vector<int64_t>>()) ||
              (spec.type == "float" && (v.is<double>() || v.is<int64_t>())) ||
              (spec.type == "str" && v.is<std::string>()) || (spec.type == "bool" && v.is<bool>()) ||
              (spec.type == "float[]" && (v.is<std::vector<double>>() || v.is<std::vector<int64_t>>()));
    if (!ok) {
      return err_.Error(value, absl::StrCat("R.", info.name, ": attribute ", spec.name, " must be ", spec.type,
                                            ", found ", Describe(value)));
    }
    if (spec.type == "float" && v.is<int64_t>()) return AttrValue(static_cast<double>(v.get<int64_t>()));
    return v;
  }

  absl::StatusOr<std::vector<int64_t>> IntList(const AstPtr& node) {
    if (node->kind != AstKind::kTuple && node->kind != AstKind::kList)
      return err_.Error(node, "expected a list of integers");
    std::vector<int64_t> values;
    for (const AstPtr& d : node->elts) {
      int64_t v;
      DataType ignored;
      if (!AsIntLiteral(d, &v, &ignored))
        return err_.Error(d, absl::StrCat("found ", Describe(d), ", expected an integer"));
      values.push_back(v);
    }
    return values;
  }

  /*! \brief R.const(1.0, "float32"): a scalar constant. */
  absl::StatusOr<relax::Expr> Const(const AstPtr& node) {
    MLC_RETURN_IF_ERROR(CheckArgs(err_, node, "R.const", 1, 2, {"dtype"}));
    DataType dtype = DataType::Float32();
    const AstPtr* dt_node = node->elts.size() > 1 ? &node->elts[1] : FindKeyword(node, "dtype");
    if (dt_node != nullptr) {
      MLC_ASSIGN_OR_RETURN(dt, ParseDtype(err_, *dt_node));
      dtype = dt;
    }
    MLC_ASSIGN_OR_RETURN(v, TirConverter::AttrLiteralOf(err_, node->elts[0]));
    double value;
    if (v.is<int64_t>()) {
      value = static_cast<double>(v.get<int64_t>());
    } else if (v.is<double>()) {
      value = v.get<double>();
    } else if (v.is<bool>()) {
      value = v.get<bool>();
    } else {
      return err_.Error(node->elts[0], "R.const takes a number");
    }
    TensorData data(dtype, {});
    void* p = data.mutable_data();
    switch (dtype.code()) {
      case DataType::kFloat:
        if (dtype.bits() == 32)
          *static_cast<float*>(p) = static_cast<float>(value);
        else if (dtype.bits() == 64)
          *static_cast<double*>(p) = value;
        else
          return err_.Error(node, "R.const supports float32/float64, int8..int64 and bool");
        break;
      case DataType::kInt:
      case DataType::kUInt:
      case DataType::kBool: {
        int64_t iv = static_cast<int64_t>(value);
        std::memcpy(p, &iv, dtype.bytes());
        break;
      }
      default: return err_.Error(node, "R.const supports float32/float64, int8..int64 and bool");
    }
    return relax::MakeConstant(data);
  }

  /*! \brief R.call_tir(f, (args...), out_sinfo=...), R.call_tir(f, (args...), R.Tensor(...)) and the older
   *         R.call_tir(f, (args...), (1, 128), dtype="float32");
   *         a string callee means a runtime function (call_dps_packed). R.call_pure_packed("f",
   *         (args...), out_sinfo=...) takes the same form: a runtime function that returns its
   *         results (whose shapes out_sinfo may leave unknown). */
  absl::StatusOr<relax::Expr> CallDps(const AstPtr& node, const std::string& name) {
    MLC_RETURN_IF_ERROR(CheckArgs(err_, node, absl::StrCat("R.", name), 2, 3, {"out_sinfo", "dtype", "tir_vars"}));
    const AstPtr& callee_node = node->elts[0];
    relax::Expr callee;
    bool packed = name == "call_dps_packed";
    if (callee_node->kind == AstKind::kString) {
      callee = relax::MakeExternFunc(callee_node->text);
      packed = true;
    } else if (callee_node->kind == AstKind::kCall && RelaxName(callee_node->a) == "ExternFunc") {
      MLC_ASSIGN_OR_RETURN(f, Expr(callee_node));
      callee = f;
      packed = true;
    } else {
      std::string global = GlobalName(callee_node);
      if (global.empty() || !prim_func_names_.count(global)) {
        return err_.Error(callee_node,
                          absl::StrCat("found ", Describe(callee_node), ", expected a T.prim_func of the module ",
                                       "or a runtime function name string"));
      }
      if (packed)
        return err_.Error(callee_node,
                          "R.call_dps_packed calls runtime functions by name; use R.call_tir for PrimFuncs");
      callee = relax::MakeGlobalVar(global);
    }
    relax::Expr args;
    const AstPtr& args_node = node->elts[1];
    if (args_node->kind == AstKind::kTuple || args_node->kind == AstKind::kList) {
      std::vector<relax::Expr> fields;
      for (const AstPtr& a : args_node->elts) {
        MLC_ASSIGN_OR_RETURN(e, Expr(a));
        fields.push_back(e);
      }
      args = relax::MakeTuple(fields);
    } else {
      MLC_ASSIGN_OR_RETURN(e, Expr(args_node));
      args = relax::MakeTuple({e});
    }
    StructInfo out;
    // out_sinfo= or, as current TVM prints it, the third positional argument: R.Tensor(...) or
    // a list of them. A tuple of integers there is the older spelling's shape.
    const AstPtr* out_node = FindKeyword(node, "out_sinfo");
    if (out_node == nullptr && node->elts.size() == 3) {
      const AstPtr& third = node->elts[2];
      const bool sinfo = third->kind == AstKind::kCall || (third->kind == AstKind::kList && !third->elts.empty() &&
                                                           third->elts[0]->kind == AstKind::kCall);
      if (sinfo) out_node = &node->elts[2];
    }
    if (out_node != nullptr) {
      if ((*out_node)->kind == AstKind::kList) {
        std::vector<StructInfo> fields;
        for (const AstPtr& f : (*out_node)->elts) {
          MLC_ASSIGN_OR_RETURN(s, ParseStructInfo(err_, f));
          fields.push_back(s);
        }
        out = relax::TupleSInfo(fields);
      } else {
        MLC_ASSIGN_OR_RETURN(s, ParseStructInfo(err_, *out_node));
        out = s;
      }
    } else if (node->elts.size() == 3) {
      // Older spelling: the output shape, and dtype= (float32 when omitted).
      MLC_ASSIGN_OR_RETURN(shape, IntList(node->elts[2]));
      DataType dtype = DataType::Float32();
      if (const AstPtr* dt = FindKeyword(node, "dtype")) {
        MLC_ASSIGN_OR_RETURN(d, ParseDtype(err_, *dt));
        dtype = d;
      }
      out = relax::TensorSInfo(shape, dtype);
    } else {
      return err_.Error(node, absl::StrCat("R.", name, " needs the output struct info: out_sinfo=R.Tensor(...)"));
    }
    if (name == "call_pure_packed" && !packed) {
      return err_.Error(callee_node, "R.call_pure_packed calls runtime functions by name");
    }
    relax::Op op = relax::GetOpOrDie(name == "call_pure_packed" ? "call_pure_packed"
                                     : packed                   ? "call_dps_packed"
                                                                : "call_tir");
    return Normalize(node, relax::MakeCall(op, {callee, args}, {}, {out}));
  }

  /*! \brief R.call_packed("f", args..., sinfo_args=R.Tensor(...)): TVM's call of a packed function
   *         that returns its result. Runtime functions here take their outputs as arguments
   *         (vm/runtime_registry.h), so the result's struct info must have a known shape: the
   *         call becomes R.call_dps_packed("f", (args...), out_sinfo=...), the VM allocating the
   *         result and passing it last. */
  absl::StatusOr<relax::Expr> CallPacked(const AstPtr& node) {
    if (node->elts.empty())
      return err_.Error(node, "R.call_packed needs the function's name string, then its arguments");
    MLC_RETURN_IF_ERROR(CheckArgs(err_, node, "R.call_packed", 1, node->elts.size(), {"sinfo_args"}));
    if (node->elts[0]->kind != AstKind::kString) {
      return err_.Error(node->elts[0],
                        absl::StrCat("found ", Describe(node->elts[0]), ", expected the function's name string"));
    }
    const AstPtr* sinfo_node = FindKeyword(node, "sinfo_args");
    if (sinfo_node == nullptr) {
      return err_.Error(node,
                        "R.call_packed needs sinfo_args=R.Tensor(...): the result's shape, which the VM allocates");
    }
    std::vector<StructInfo> outs;
    if ((*sinfo_node)->kind == AstKind::kList || (*sinfo_node)->kind == AstKind::kTuple) {
      for (const AstPtr& f : (*sinfo_node)->elts) {
        MLC_ASSIGN_OR_RETURN(sinfo, ParseStructInfo(err_, f));
        outs.push_back(sinfo);
      }
    } else {
      MLC_ASSIGN_OR_RETURN(sinfo, ParseStructInfo(err_, *sinfo_node));
      outs.push_back(sinfo);
    }
    for (const StructInfo& o : outs) {
      const auto* t = o.as<relax::TensorStructInfoNode>();
      if (t == nullptr || !t->HasKnownShape()) {
        return err_.Error(*sinfo_node,
                          "R.call_packed's sinfo_args must be tensors of known shape (the VM allocates the result)");
      }
    }
    std::vector<relax::Expr> args;
    for (size_t i = 1; i < node->elts.size(); ++i) {
      MLC_ASSIGN_OR_RETURN(e, Expr(node->elts[i]));
      args.push_back(e);
    }
    StructInfo out = outs.size() == 1 ? outs[0] : relax::TupleSInfo(outs);
    return Normalize(node,
                     relax::MakeCall(relax::GetOpOrDie("call_dps_packed"),
                                     {relax::MakeExternFunc(node->elts[0]->text), relax::MakeTuple(args)}, {}, {out}));
  }

  /*! \brief [n, 4] or (n, 4): the dimensions of a shape value. */
  absl::StatusOr<std::vector<tir::PrimExpr>> DimList(const ErrorReporter& err, const AstPtr& list) {
    if (list->kind != AstKind::kTuple && list->kind != AstKind::kList) {
      return err.Error(list,
                       absl::StrCat("found ", Describe(list), ", expected a list of dimensions such as [n, 784]"));
    }
    std::vector<tir::PrimExpr> dims;
    for (const AstPtr& d : list->elts) {
      MLC_ASSIGN_OR_RETURN(dim, Dim(err, d));
      dims.push_back(dim);
    }
    return dims;
  }

  /*! \brief One dimension of an R.Tensor shape: a constant, a shape variable (`n`, or `"n"` as
   *         a signature spells it), or an integer expression of them (`n * 2`, `"n - 1"`).
   *         The signature defines the variables it names; the body uses them. */
  absl::StatusOr<tir::PrimExpr> Dim(const ErrorReporter& err, const AstPtr& d) {
    int64_t v;
    DataType ignored;
    if (AsIntLiteral(d, &v, &ignored)) {
      if (v < 0) return err.Error(d, absl::StrCat("found ", Describe(d), ", expected a non-negative dimension"));
      return tir::I64(v);
    }
    if (d->kind == AstKind::kString) {
      absl::StatusOr<AstPtr> parsed = ParsePython(d->text, err.filename());
      if (!parsed.ok() || (*parsed)->body.size() != 1 || (*parsed)->body[0]->kind != AstKind::kExprStmt) {
        return err.Error(
            d, absl::StrCat("found \"", d->text, "\", expected a dimension expression such as \"n\" or \"n * 2\""));
      }
      // Positions in the string are reported at the string.
      return Dim(err, WithPosition((*parsed)->body[0]->a, d));
    }
    switch (d->kind) {
      case AstKind::kName: {
        auto it = shape_vars_.find(d->text);
        if (it != shape_vars_.end()) return tir::PrimExpr(it->second);
        if (!defining_shape_vars_) {
          if (declared_shape_vars_.count(d->text)) {
            return err.Error(
                d, absl::StrCat("shape variable '", d->text, "' is used before the R.match_cast that defines it"));
          }
          return err.Error(
              d, absl::StrCat("shape variable '", d->text, "' is not defined: name it in the function's signature, ",
                              "e.g. R.Tensor((\"", d->text, "\", 784)), or bind it with R.match_cast"));
        }
        tir::Var var = tir::MakeVar(d->text, DataType::Int64());
        shape_vars_[d->text] = var;
        return tir::PrimExpr(var);
      }
      case AstKind::kBinOp: {
        MLC_ASSIGN_OR_RETURN(a, Dim(err, d->a));
        MLC_ASSIGN_OR_RETURN(b, Dim(err, d->b));
        if (d->text == "+") return tir::operator+(a, b);
        if (d->text == "-") return tir::operator-(a, b);
        if (d->text == "*") return tir::operator*(a, b);
        if (d->text == "//") return tir::FloorDiv(a, b);
        if (d->text == "%") return tir::FloorMod(a, b);
        break;
      }
      case AstKind::kCall: {
        std::string f = TirName(d->a);
        if ((f == "min" || f == "max") && d->elts.size() == 2) {
          MLC_ASSIGN_OR_RETURN(a, Dim(err, d->elts[0]));
          MLC_ASSIGN_OR_RETURN(b, Dim(err, d->elts[1]));
          return f == "min" ? tir::Min(a, b) : tir::Max(a, b);
        }
        break;
      }
      default: break;
    }
    return err.Error(
        d, absl::StrCat("found ", Describe(d), ", expected a dimension: a non-negative constant, a shape variable ",
                        "or an expression of them with + - * // %"));
  }

  /*! \brief A copy of `node` (and its children) positioned at `at`. */
  static AstPtr WithPosition(const AstPtr& node, const AstPtr& at) {
    if (node == nullptr) return node;
    auto copy = std::make_shared<Ast>(*node);
    copy->line = at->line;
    copy->col = at->col;
    copy->a = WithPosition(node->a, at);
    copy->b = WithPosition(node->b, at);
    for (AstPtr& e : copy->elts) e = WithPosition(e, at);
    return copy;
  }

  const ErrorReporter& err_;
  const IRModule& mod_;
  const std::set<std::string>& function_names_;
  const std::set<std::string>& prim_func_names_;
  std::string class_name_;
  const std::optional<std::vector<TensorData>>& constants_;
  std::map<int64_t, relax::Expr>* constant_cache_;
  std::map<std::string, relax::Var> vars_;
  /*! \brief The function's shape variables by name; the signature defines them. */
  std::map<std::string, tir::Var> shape_vars_;
  // Declared with `m = T.int64()` but not defined yet (an R.match_cast will).
  std::set<std::string> declared_shape_vars_;
  bool defining_shape_vars_ = false;
  std::vector<relax::VarBinding> plain_;
  std::vector<relax::BindingBlock> blocks_;
};

// =============================================================================================
// Module.

struct FunctionDecl {
  AstPtr def;
  bool is_prim = false;
  bool is_private = false;
};

/*! \brief @T.prim_func, @T.prim_func(private=True), @R.function, @relax.function. */
absl::StatusOr<std::optional<FunctionDecl>> ClassifyFunction(const ErrorReporter& err, const AstPtr& def) {
  for (const AstPtr& d : def->decorators) {
    AstPtr callee = d->kind == AstKind::kCall ? d->a : d;
    std::string name = DottedName(callee);
    bool prim =
        name == "T.prim_func" || name == "tir.prim_func" || name == "tvm.script.tir.prim_func" || name == "prim_func";
    bool graph = name == "R.function" || name == "relax.function" || name == "tvm.script.relax.function";
    if (!prim && !graph) continue;
    FunctionDecl decl{def, prim, false};
    if (d->kind == AstKind::kCall) {
      MLC_RETURN_IF_ERROR(CheckArgs(err, d, name, 0, 0, {"private", "pure", "check_well_formed"}));
      if (const AstPtr* p = FindKeyword(d, "private")) {
        if ((*p)->kind != AstKind::kBool) return err.Error(*p, "private must be True or False");
        decl.is_private = (*p)->int_value != 0;
      }
    }
    return std::optional<FunctionDecl>(decl);
  }
  return err.Error(def, absl::StrCat("function ", def->text, " needs a @T.prim_func or @R.function decorator"));
}

absl::StatusOr<std::vector<TensorData>> MetadataFromAst(const ErrorReporter& err, const AstPtr& dict) {
  if (dict->kind != AstKind::kDict) return err.Error(dict, "metadata must be a dict");
  std::vector<TensorData> out;
  for (size_t i = 0; i + 1 < dict->elts.size(); i += 2) {
    const AstPtr& key = dict->elts[i];
    if (key->kind != AstKind::kString || key->text != "relax.expr.Constant") {
      return err.Error(key, "metadata sections other than \"relax.expr.Constant\" are not supported");
    }
    const AstPtr& list = dict->elts[i + 1];
    if (list->kind != AstKind::kList) return err.Error(list, "expected a list of constants");
    for (const AstPtr& entry : list->elts) {
      if (entry->kind != AstKind::kDict) return err.Error(entry, "each constant is a dict with dtype, shape and data");
      std::optional<DataType> dtype;
      std::optional<std::vector<int64_t>> shape;
      std::optional<std::string> bytes;
      for (size_t k = 0; k + 1 < entry->elts.size(); k += 2) {
        const AstPtr& ek = entry->elts[k];
        const AstPtr& ev = entry->elts[k + 1];
        if (ek->kind != AstKind::kString) return err.Error(ek, "keys must be strings");
        if (ek->text == "dtype") {
          MLC_ASSIGN_OR_RETURN(dt, ParseDtype(err, ev));
          dtype = dt;
        } else if (ek->text == "shape") {
          if (ev->kind != AstKind::kList && ev->kind != AstKind::kTuple) return err.Error(ev, "shape must be a list");
          shape.emplace();
          for (const AstPtr& d : ev->elts) {
            if (d->kind != AstKind::kInt || d->int_value < 0)
              return err.Error(d, "dimensions must be non-negative integers");
            shape->push_back(d->int_value);
          }
        } else if (ek->text == "data") {
          if (ev->kind != AstKind::kString) return err.Error(ev, "data must be a base64 string");
          std::string decoded;
          if (!absl::Base64Unescape(ev->text, &decoded)) return err.Error(ev, "data is not valid base64");
          bytes = decoded;
        } else {
          return err.Error(ek, absl::StrCat("unknown constant field '", ek->text, "'"));
        }
      }
      if (!dtype || !shape || !bytes) return err.Error(entry, "a constant needs dtype, shape and data");
      int64_t n = NumElements(*shape);
      if (static_cast<int64_t>(bytes->size()) != n * dtype->bytes()) {
        return err.Error(entry, absl::StrCat("constant data holds ", bytes->size(), " bytes; ", dtype->ToString(), " ",
                                             absl::StrJoin(*shape, "x"), " needs ", n * dtype->bytes()));
      }
      out.emplace_back(*dtype, *shape, std::move(*bytes));
    }
  }
  return out;
}

class ModuleConverter {
 public:
  ModuleConverter(const std::string& filename, const ParseOptions& options) : err_(filename), options_(options) {}

  absl::StatusOr<IRModule> Convert(const AstPtr& root) {
    constants_ = options_.constants;
    std::vector<FunctionDecl> decls;
    bool saw_module = false;
    for (const AstPtr& s : root->body) {
      switch (s->kind) {
        case AstKind::kImport:
        case AstKind::kPass: break;
        case AstKind::kExprStmt:
          if (s->a->kind != AstKind::kString)
            return err_.Error(s, "expected an @I.ir_module class or a decorated function");
          break;
        case AstKind::kAssign:
          if (s->a->kind == AstKind::kName && s->a->text == "metadata") {
            MLC_ASSIGN_OR_RETURN(constants, MetadataFromAst(err_, s->b));
            constants_ = std::move(constants);
            break;
          }
          return err_.Error(s, "expected an @I.ir_module class, a decorated function or a metadata section");
        case AstKind::kClassDef: {
          bool is_module = false;
          for (const AstPtr& d : s->decorators) {
            std::string name = DottedName(d);
            is_module = is_module || name == "I.ir_module" || name == "tvm.script.ir_module" || name == "ir_module" ||
                        name == "ir.ir_module";
          }
          if (!is_module) return err_.Error(s, absl::StrCat("class ", s->text, " needs the @I.ir_module decorator"));
          if (saw_module) return err_.Error(s, "only one @I.ir_module class per file");
          saw_module = true;
          class_name_ = s->text;
          for (const AstPtr& m : s->body) {
            if (m->kind == AstKind::kPass || (m->kind == AstKind::kExprStmt && m->a->kind == AstKind::kString))
              continue;
            if (m->kind == AstKind::kExprStmt && m->a->kind == AstKind::kCall &&
                DottedName(m->a->a) == "I.module_attrs") {
              MLC_RETURN_IF_ERROR(CheckArgs(err_, m->a, "I.module_attrs", 1, 1));
              MLC_ASSIGN_OR_RETURN(attrs, TirConverter::AttrDictOf(err_, m->a->elts[0]));
              for (auto& [k, v] : attrs) mod_.mutable_attrs()[k] = v;
              continue;
            }
            if (m->kind != AstKind::kFunctionDef)
              return err_.Error(m, "an @I.ir_module class holds only decorated functions");
            MLC_ASSIGN_OR_RETURN(decl, ClassifyFunction(err_, m));
            decls.push_back(*decl);
          }
          break;
        }
        case AstKind::kFunctionDef: {
          MLC_ASSIGN_OR_RETURN(decl, ClassifyFunction(err_, s));
          decls.push_back(*decl);
          break;
        }
        default: return err_.Error(s, "expected an @I.ir_module class or a decorated function");
      }
    }
    if (decls.empty())
      return err_.Error(root, "no functions found (expected an @I.ir_module class or a @T.prim_func / @R.function)");

    std::map<std::string, const FunctionDecl*> graph_decls;
    for (const FunctionDecl& d : decls) {
      std::set<std::string>& names = d.is_prim ? prim_names_ : function_names_;
      if (prim_names_.count(d.def->text) + function_names_.count(d.def->text) > 0) {
        return err_.Error(d.def, absl::StrCat("function ", d.def->text, " is defined twice"));
      }
      names.insert(d.def->text);
      if (!d.is_prim) graph_decls[d.def->text] = &d;
    }
    for (const FunctionDecl& d : decls) {
      if (!d.is_prim) continue;
      MLC_ASSIGN_OR_RETURN(func, TirConverter(err_).Convert(d.def, d.is_private));
      mod_.Add(d.def->text, func);
    }
    // Graph functions callees first, so calls infer their result from the callee.
    std::set<std::string> done, visiting;
    std::function<absl::Status(const FunctionDecl&)> convert = [&](const FunctionDecl& d) -> absl::Status {
      const std::string& name = d.def->text;
      if (done.count(name)) return absl::OkStatus();
      // A function on a cycle of calls (a loop written as recursion) is declared first, its
      // signature enough for the calls converted before its body.
      auto declare = [&]() -> absl::Status {
        if (mod_.Contains(name)) return absl::OkStatus();
        RelaxConverter converter(err_, mod_, function_names_, prim_names_, class_name_, constants_, &constant_cache_);
        MLC_ASSIGN_OR_RETURN(signature, converter.Declare(d.def));
        mod_.Add(name, signature);
        return absl::OkStatus();
      };
      if (visiting.count(name)) return declare();
      visiting.insert(name);
      std::set<std::string> refs;
      for (const AstPtr& s : d.def->body) CollectNames(s, &refs);
      for (const std::string& r : refs) {
        auto it = graph_decls.find(r);
        if (it == graph_decls.end()) continue;
        MLC_RETURN_IF_ERROR(r == name ? declare() : convert(*it->second));
      }
      RelaxConverter converter(err_, mod_, function_names_, prim_names_, class_name_, constants_, &constant_cache_);
      MLC_ASSIGN_OR_RETURN(func, converter.Convert(d.def, d.is_private));
      mod_.Add(name, func);
      visiting.erase(name);
      done.insert(name);
      return absl::OkStatus();
    };
    for (const FunctionDecl& d : decls) {
      if (!d.is_prim) MLC_RETURN_IF_ERROR(convert(d));
    }
    return mod_;
  }

 private:
  ErrorReporter err_;
  const ParseOptions& options_;
  std::optional<std::vector<TensorData>> constants_;
  std::map<int64_t, relax::Expr> constant_cache_;
  std::string class_name_ = "Module";
  std::set<std::string> function_names_, prim_names_;
  IRModule mod_;
};

}  // namespace
}  // namespace script

absl::StatusOr<IRModule> ParseTVMScript(const std::string& source, const std::string& filename,
                                        const ParseOptions& options) {
  absl::StatusOr<script::AstPtr> ast = script::ParsePython(source, filename);
  if (!ast.ok()) return ast.status();
  absl::StatusOr<IRModule> mod = script::ModuleConverter(filename, options).Convert(*ast);
  if (!mod.ok()) return mod.status();
  if (options.verify) {
    absl::Status status = VerifyModule(*mod);
    if (!status.ok()) return absl::InvalidArgumentError(absl::StrCat(filename, ": ", status.message()));
  }
  return mod;
}

absl::StatusOr<std::vector<TensorData>> ParseMetadata(const std::string& source, const std::string& filename) {
  absl::StatusOr<script::AstPtr> ast = script::ParsePython(source, filename);
  if (!ast.ok()) return ast.status();
  script::ErrorReporter err(filename);
  for (const script::AstPtr& s : (*ast)->body) {
    if (s->kind == script::AstKind::kAssign && s->a->kind == script::AstKind::kName && s->a->text == "metadata") {
      return script::MetadataFromAst(err, s->b);
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(filename, ": no `metadata = {...}` section found"));
}

}  // namespace mlc
