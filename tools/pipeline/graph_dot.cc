/*! \file graph_dot.cc
 *  \brief Graphviz output of a graph-level function.
 */
#include "tools/pipeline/graph_dot.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "ir/graph/expr_functor.h"
#include "ir/graph/op.h"
#include "ir/tir/tir_functor.h"

namespace mlc {
namespace pipeline {
namespace {

std::string Escape(const std::string& s) { return absl::StrReplaceAll(s, {{"\"", "\\\""}}); }

class BlockNames : public tir::StmtExprVisitor {
 public:
  std::vector<std::string> names;

 protected:
  void VisitStmt_(const tir::BlockNode* op) override {
    if (op->name != "root") names.push_back(op->name);
    tir::StmtExprVisitor::VisitStmt_(op);
  }
};

class Collector : public relax::ExprVisitor {
 public:
  std::vector<const Object*> vars;

 protected:
  void VisitExpr_(const relax::VarNode* op) override { vars.push_back(op); }
};

}  // namespace

std::string FunctionToDot(const IRModule& mod, const std::string& func_name) {
  relax::Function func = mod.LookupFunction(func_name);
  std::string out = absl::StrCat("digraph \"", Escape(func_name),
                                 "\" {\n  rankdir=TB;\n  node [shape=box, fontname=\"monospace\"];\n");
  if (!func.defined()) return out + "}\n";
  std::map<const Object*, std::string> node_of;
  int counter = 0;
  for (const relax::Var& p : func->params) {
    std::string id = absl::StrCat("n", counter++);
    node_of[p.get()] = id;
    absl::StrAppend(&out, "  ", id, " [label=\"", Escape(p->name_hint), "\", shape=ellipse];\n");
  }
  int clusters = 0;
  for (const relax::BindingBlock& block : func->body->blocks) {
    for (const relax::VarBinding& b : block->bindings) {
      std::string id = absl::StrCat("n", counter++);
      node_of[b->var.get()] = id;
      std::string label = b->var->name_hint;
      std::vector<std::string> fused_ops;
      if (const auto* call = b->value.as<relax::CallNode>()) {
        if (const auto* op = call->op.as<relax::OpNode>()) {
          label += " = " + op->name();
          if (op->name() == "call_tir") {
            const std::string& callee = call->args[0].as<relax::GlobalVarNode>()->name;
            label += " " + callee;
            if (tir::PrimFunc prim = mod.LookupPrimFunc(callee); prim.defined()) {
              BlockNames blocks;
              blocks.VisitStmt(prim->body);
              if (blocks.names.size() > 1) fused_ops = blocks.names;
            }
          } else if (op->name() == "call_dps_packed") {
            label += " " + call->args[0].as<relax::ExternFuncNode>()->global_symbol;
          }
        } else if (const auto* gv = call->op.as<relax::GlobalVarNode>()) {
          label += " = " + gv->name;
        }
      }
      if (!fused_ops.empty()) {
        absl::StrAppend(&out, "  subgraph cluster_", clusters++, " {\n    label=\"", Escape(label),
                        "\"; style=rounded;\n");
        absl::StrAppend(&out, "    ", id, " [label=\"", Escape(b->var->name_hint), "\"];\n");
        for (size_t i = 0; i < fused_ops.size(); ++i) {
          absl::StrAppend(&out, "    ", id, "_op", i, " [label=\"", Escape(fused_ops[i]), "\", shape=plaintext];\n");
        }
        out += "  }\n";
      } else {
        absl::StrAppend(&out, "  ", id, " [label=\"", Escape(label), "\"];\n");
      }
      Collector uses;
      uses.VisitExpr(b->value);
      for (const Object* v : uses.vars) {
        auto it = node_of.find(v);
        if (it != node_of.end()) absl::StrAppend(&out, "  ", it->second, " -> ", id, ";\n");
      }
    }
  }
  return out + "}\n";
}

}  // namespace pipeline
}  // namespace mlc
