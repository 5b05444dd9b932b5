/*! \file converter.cc
 *  \brief Gives the Python-subset syntax tree its TVMScript meaning: @I.ir_module classes
 *         (functions, module attributes, metadata constants), with @T.prim_func loop programs
 *         (tir_converter.h) and @R.function graph functions (graph_converter.h), in both the
 *         older spelling the seeds use (T.Buffer[...], Tensor(...), R.call_tir(f, args, shape,
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
#include "frontend/script/graph_converter.h"
#include "frontend/script/script_util.h"
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
namespace {

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
              MLC_ASSIGN_OR_RETURN(attrs, ConvertAttrDict(err_, m->a->elts[0]));
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
      MLC_ASSIGN_OR_RETURN(func, ConvertPrimFunc(err_, d.def, d.is_private));
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
        MLC_ASSIGN_OR_RETURN(signature, DeclareGraphFunction(GraphContext(), d.def));
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
      MLC_ASSIGN_OR_RETURN(func, ConvertGraphFunction(GraphContext(), d.def, d.is_private));
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
  GraphFunctionContext GraphContext() {
    return {err_, mod_, function_names_, prim_names_, class_name_, constants_, &constant_cache_};
  }

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
