/*! \file trace_parser.cc
 *  \brief Schedule traces in TVM's Python spelling -> Trace.
 */
#include "passes/schedule/trace_parser.h"

#include <map>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/tir/prim_expr_ops.h"
#include "support/python_syntax/parser.h"

namespace mlc {
namespace script {
namespace {

using tir::TraceValue;

class TraceConverter {
 public:
  explicit TraceConverter(std::string filename) : filename_(std::move(filename)) {}

  absl::StatusOr<tir::Trace> Convert(const AstPtr& module) {
    tir::Trace trace;
    for (const AstPtr& s : module->body) {
      switch (s->kind) {
        case AstKind::kImport:
        case AstKind::kPass: continue;
        case AstKind::kAssign: {
          const AstPtr& call = s->b;
          // sch = tir.Schedule(mod): the schedule itself.
          if (call->kind == AstKind::kCall && absl::EndsWith(DottedName(call->a), "Schedule")) {
            if (s->a->kind == AstKind::kName) sch_name_ = s->a->text;
            continue;
          }
          std::vector<AstPtr> targets;
          if (s->a->kind == AstKind::kName)
            targets = {s->a};
          else if (s->a->kind == AstKind::kTuple || s->a->kind == AstKind::kList)
            targets = s->a->elts;
          else
            return Error(s->a, "expected names to assign the results to");
          absl::StatusOr<tir::Instruction> inst = Instruction(call, targets);
          if (!inst.ok()) return inst.status();
          trace.Append(*inst);
          continue;
        }
        case AstKind::kExprStmt: {
          absl::StatusOr<tir::Instruction> inst = Instruction(s->a, {});
          if (!inst.ok()) return inst.status();
          trace.Append(*inst);
          continue;
        }
        default: return Error(s, "a trace is a sequence of `x = sch.primitive(...)` and `sch.primitive(...)` lines");
      }
    }
    return trace;
  }

 private:
  absl::Status Error(const AstPtr& at, const std::string& message) const {
    return absl::InvalidArgumentError(absl::StrCat(filename_, ":", at->line, ":", at->col, ": ", message));
  }

  absl::StatusOr<tir::Instruction> Instruction(const AstPtr& call, const std::vector<AstPtr>& targets) {
    if (call->kind != AstKind::kCall || call->a->kind != AstKind::kAttribute || call->a->a->kind != AstKind::kName ||
        call->a->a->text != sch_name_) {
      return Error(call, absl::StrCat("expected a call of a schedule primitive (", sch_name_, ".split(...), ...)"));
    }
    const std::string& kind = call->a->text;
    const tir::InstructionKindInfo* info = tir::FindInstructionKind(kind);
    if (info == nullptr) {
      return Error(call->a, absl::StrCat("unknown primitive ", sch_name_, ".", kind,
                                         " (known: ", absl::StrJoin(tir::InstructionKindNames(), ", "), ")"));
    }
    tir::Instruction inst;
    inst.kind = kind;
    inst.line = call->line;
    std::vector<std::optional<TraceValue>> params(info->params.size());
    size_t next = 0;
    for (const AstPtr& arg : call->elts) {
      if (next >= params.size()) return Error(arg, absl::StrCat(kind, " takes ", params.size(), " arguments"));
      if (info->params[next][0] == '*') {
        // Every remaining positional argument belongs to the variadic parameter.
        if (!params[next]) params[next] = TraceValue::List({});
        absl::StatusOr<TraceValue> v = Value(arg);
        if (!v.ok()) return v.status();
        params[next]->list.push_back(*v);
        continue;
      }
      absl::StatusOr<TraceValue> v = Value(arg);
      if (!v.ok()) return v.status();
      params[next++] = *v;
    }
    for (const Keyword& kw : call->keywords) {
      if (kw.name == "decision" && info->has_decision) {
        absl::StatusOr<TraceValue> v = Value(kw.value);
        if (!v.ok()) return v.status();
        inst.decision = *v;
        continue;
      }
      auto fixed =
          std::find_if(info->fixed.begin(), info->fixed.end(), [&](const auto& f) { return f.first == kw.name; });
      if (fixed != info->fixed.end()) {
        absl::StatusOr<TraceValue> v = Value(kw.value);
        if (!v.ok()) return v.status();
        bool same = v->kind == fixed->second.kind && v->i == fixed->second.i;
        if (!same)
          return Error(
              kw.value,
              absl::StrCat(kind, ": only ", kw.name, "=", fixed->second.i ? "True" : "False",
                           fixed->second.kind == TraceValue::kInt ? absl::StrCat(" (", fixed->second.i, ")") : "",
                           " is supported"));
        continue;
      }
      auto it = std::find(info->params.begin(), info->params.end(), kw.name);
      if (it == info->params.end()) {
        return Error(kw.value, absl::StrCat(kind, " has no argument ", kw.name,
                                            " (arguments: ", absl::StrJoin(info->params, ", "), ")"));
      }
      size_t i = static_cast<size_t>(it - info->params.begin());
      if (params[i]) return Error(kw.value, absl::StrCat(kind, ": argument ", kw.name, " given twice"));
      absl::StatusOr<TraceValue> v = Value(kw.value);
      if (!v.ok()) return v.status();
      params[i] = *v;
    }
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i]) continue;
      if (info->params[i][0] == '*') {
        params[i] = TraceValue::List({});
        continue;
      }
      auto def = std::find_if(info->defaults.begin(), info->defaults.end(),
                              [&](const auto& d) { return d.first == info->params[i]; });
      if (def == info->defaults.end())
        return Error(call, absl::StrCat(kind, ": argument ", info->params[i], " is missing"));
      params[i] = def->second;
    }
    for (const auto& p : params) inst.inputs.push_back(*p);
    // Results: one handle per name, of the kind the primitive returns.
    TraceValue::Kind out_kind = TraceValue::kNone;
    switch (info->outputs) {
      case tir::InstructionKindInfo::kOneBlock:
      case tir::InstructionKindInfo::kBlocks: out_kind = TraceValue::kBlock; break;
      case tir::InstructionKindInfo::kOneLoop:
      case tir::InstructionKindInfo::kLoops: out_kind = TraceValue::kLoop; break;
      case tir::InstructionKindInfo::kOneExpr:
      case tir::InstructionKindInfo::kExprs: out_kind = TraceValue::kExpr; break;
      case tir::InstructionKindInfo::kNoOutput:
        if (!targets.empty()) return Error(targets[0], absl::StrCat(kind, " returns nothing"));
        break;
    }
    bool single = info->outputs == tir::InstructionKindInfo::kOneBlock ||
                  info->outputs == tir::InstructionKindInfo::kOneLoop ||
                  info->outputs == tir::InstructionKindInfo::kOneExpr;
    if (single && targets.size() > 1) return Error(targets[1], absl::StrCat(kind, " returns one value"));
    for (const AstPtr& t : targets) {
      if (t->kind != AstKind::kName) return Error(t, "expected a name");
      TraceValue v;
      v.kind = out_kind;
      v.i = next_id_++;
      names_[t->text] = v;
      inst.outputs.push_back(v);
    }
    return inst;
  }

  absl::StatusOr<TraceValue> Value(const AstPtr& e) {
    switch (e->kind) {
      case AstKind::kName: {
        auto it = names_.find(e->text);
        if (it == names_.end()) return Error(e, absl::StrCat(e->text, " is not defined by an earlier line"));
        return it->second;
      }
      case AstKind::kInt: return TraceValue::Int(e->int_value);
      case AstKind::kFloat: return TraceValue::Float(e->float_value);
      case AstKind::kString: return TraceValue::Str(e->text);
      case AstKind::kBool: return TraceValue::Bool(e->int_value != 0);
      case AstKind::kNone: return TraceValue::None();
      case AstKind::kUnaryOp:
        if (e->text == "-" && e->a->kind == AstKind::kInt) return TraceValue::Int(-e->a->int_value);
        if (e->text == "-" && e->a->kind == AstKind::kFloat) return TraceValue::Float(-e->a->float_value);
        return Error(e, "expected a literal");
      case AstKind::kList:
      case AstKind::kTuple: {
        std::vector<TraceValue> items;
        for (const AstPtr& x : e->elts) {
          absl::StatusOr<TraceValue> v = Value(x);
          if (!v.ok()) return v;
          items.push_back(*v);
        }
        return TraceValue::List(items);
      }
      case AstKind::kLambda: return Lambda(e);
      default: return Error(e, "expected a handle, a literal, a list or a lambda");
    }
  }

  /*! \brief lambda i, j: (i // 16, j, i % 16) -> an index map. */
  absl::StatusOr<TraceValue> Lambda(const AstPtr& e) {
    tir::IndexMap map;
    std::map<std::string, tir::Var> vars;
    for (const Param& p : e->params) {
      map.inputs.push_back(tir::MakeVar(p.name, DataType::Int64()));
      vars[p.name] = map.inputs.back();
    }
    std::vector<AstPtr> outs =
        e->a->kind == AstKind::kTuple || e->a->kind == AstKind::kList ? e->a->elts : std::vector<AstPtr>{e->a};
    for (const AstPtr& o : outs) {
      absl::StatusOr<tir::PrimExpr> x = IndexExpr(o, vars);
      if (!x.ok()) return x.status();
      map.outputs.push_back(*x);
    }
    return TraceValue::Map(map);
  }

  absl::StatusOr<tir::PrimExpr> IndexExpr(const AstPtr& e, const std::map<std::string, tir::Var>& vars) {
    switch (e->kind) {
      case AstKind::kName: {
        auto it = vars.find(e->text);
        if (it == vars.end()) return Error(e, absl::StrCat(e->text, " is not a parameter of the lambda"));
        return tir::PrimExpr(it->second);
      }
      case AstKind::kInt: return tir::I64(e->int_value);
      case AstKind::kBinOp: {
        absl::StatusOr<tir::PrimExpr> a = IndexExpr(e->a, vars);
        if (!a.ok()) return a;
        absl::StatusOr<tir::PrimExpr> b = IndexExpr(e->b, vars);
        if (!b.ok()) return b;
        if (e->text == "+") return *a + *b;
        if (e->text == "-") return *a - *b;
        if (e->text == "*") return *a * *b;
        if (e->text == "//") return tir::FloorDiv(*a, *b);
        if (e->text == "%") return tir::FloorMod(*a, *b);
        return Error(e, absl::StrCat("operator ", e->text, " is not allowed in an index map"));
      }
      default: return Error(e, "an index map computes with its parameters, integers, + - * // %");
    }
  }

  std::string filename_;
  std::string sch_name_ = "sch";
  std::map<std::string, TraceValue> names_;
  int next_id_ = 0;
};

}  // namespace

absl::StatusOr<tir::Trace> ParseTrace(const std::string& text, const std::string& filename) {
  absl::StatusOr<AstPtr> module = ParsePython(text, filename);
  if (!module.ok()) return module.status();
  return TraceConverter(filename).Convert(*module);
}

}  // namespace script
}  // namespace mlc
