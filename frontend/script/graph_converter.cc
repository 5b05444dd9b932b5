/*! \file graph_converter.cc
 *  \brief @R.function graph-level functions (graph_converter.h).
 */
#include "frontend/script/graph_converter.h"

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
#include "frontend/script/tir_converter.h"
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

namespace {

using relax::StructInfo;
using tir::FloatImm;
using tir::IntImm;
using tir::PrimExpr;
using tir::Stmt;

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
            MLC_ASSIGN_OR_RETURN(parsed, ConvertAttrDict(err_, e->elts[0]));
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
    MLC_ASSIGN_OR_RETURN(v, ConvertAttrLiteral(err_, value));
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
    MLC_ASSIGN_OR_RETURN(v, ConvertAttrLiteral(err_, node->elts[0]));
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

RelaxConverter MakeConverter(const GraphFunctionContext& c) {
  return RelaxConverter(c.err, c.mod, c.function_names, c.prim_func_names, c.class_name, c.constants, c.constant_cache);
}

}  // namespace

absl::StatusOr<relax::Function> DeclareGraphFunction(const GraphFunctionContext& ctx, const AstPtr& def) {
  return MakeConverter(ctx).Declare(def);
}

absl::StatusOr<relax::Function> ConvertGraphFunction(const GraphFunctionContext& ctx, const AstPtr& def,
                                                     bool is_private) {
  return MakeConverter(ctx).Convert(def, is_private);
}

}  // namespace script
}  // namespace mlc
