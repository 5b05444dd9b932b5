/*! \file tir_converter.cc
 *  \brief @T.prim_func loop programs (tir_converter.h).
 */
#include "frontend/script/tir_converter.h"

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
#include "ir/graph/op.h"
#include "ir/graph/verifier.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/intrinsics.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/shape_expr.h"
#include "ir/tir/tir_util.h"
#include "support/python_syntax/ast.h"
#include "support/status_macros.h"

namespace mlc {
namespace script {
namespace {

using relax::StructInfo;
using tir::FloatImm;
using tir::IntImm;
using tir::PrimExpr;
using tir::Stmt;

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
      // T.if_then_else evaluates only the branch taken (a concat's guarded reads), Select both.
      return name == "Select" ? tir::Select(c, t, f) : tir::IfThenElse(c, t, f);
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

}  // namespace

absl::StatusOr<tir::PrimFunc> ConvertPrimFunc(const ErrorReporter& err, const AstPtr& def, bool is_private) {
  return TirConverter(err).Convert(def, is_private);
}

absl::StatusOr<Attrs> ConvertAttrDict(const ErrorReporter& err, const AstPtr& node) {
  return TirConverter::AttrDictOf(err, node);
}

absl::StatusOr<AttrValue> ConvertAttrLiteral(const ErrorReporter& err, const AstPtr& node) {
  return TirConverter::AttrLiteralOf(err, node);
}

}  // namespace script
}  // namespace mlc
