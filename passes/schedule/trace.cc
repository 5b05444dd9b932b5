/*! \file trace.cc
 *  \brief Trace values, the Python spelling of a trace, and its Protobuf form.
 */
#include "passes/schedule/trace.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/graph/printer.h"
#include "ir/tir/prim_expr_ops.h"
#include "passes/schedule/trace.pb.h"

namespace mlc {
namespace tir {

TraceValue TraceValue::Int(int64_t v) {
  TraceValue t;
  t.kind = kInt;
  t.i = v;
  return t;
}
TraceValue TraceValue::Float(double v) {
  TraceValue t;
  t.kind = kFloat;
  t.f = v;
  return t;
}
TraceValue TraceValue::Bool(bool v) {
  TraceValue t;
  t.kind = kBool;
  t.i = v;
  return t;
}
TraceValue TraceValue::Str(std::string v) {
  TraceValue t;
  t.kind = kString;
  t.s = std::move(v);
  return t;
}
TraceValue TraceValue::Block(const BlockRV& rv) {
  TraceValue t;
  t.kind = kBlock;
  t.i = rv.id;
  return t;
}
TraceValue TraceValue::Loop(const LoopRV& rv) {
  TraceValue t;
  t.kind = kLoop;
  t.i = rv.id;
  return t;
}
TraceValue TraceValue::Expr(const ExprRV& rv) {
  TraceValue t;
  t.kind = kExpr;
  t.i = rv.id;
  return t;
}
TraceValue TraceValue::List(std::vector<TraceValue> v) {
  TraceValue t;
  t.kind = kList;
  t.list = std::move(v);
  return t;
}
TraceValue TraceValue::Map(IndexMap m) {
  TraceValue t;
  t.kind = kIndexMap;
  t.map = std::move(m);
  return t;
}

namespace {

bool SameValue(const TraceValue& a, const TraceValue& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case TraceValue::kNone: return true;
    case TraceValue::kInt:
    case TraceValue::kBool:
    case TraceValue::kBlock:
    case TraceValue::kLoop:
    case TraceValue::kExpr: return a.i == b.i;
    case TraceValue::kFloat: return a.f == b.f;
    case TraceValue::kString: return a.s == b.s;
    case TraceValue::kList:
      if (a.list.size() != b.list.size()) return false;
      for (size_t i = 0; i < a.list.size(); ++i) {
        if (!SameValue(a.list[i], b.list[i])) return false;
      }
      return true;
    case TraceValue::kIndexMap: return false;
  }
  return false;
}

/*! \brief An index map output as the trace parser reads it: plain integers, Python operators. */
std::string IndexExprAsPython(const PrimExpr& e, int parent_precedence = 0, bool right_operand = false) {
  if (const auto* imm = e.as<IntImmNode>()) return absl::StrCat(imm->value);
  if (const auto* v = e.as<TirVarNode>()) return v->name;
  if (const auto* c = e.as<CastNode>()) return IndexExprAsPython(c->value, parent_precedence, right_operand);
  static const std::map<NodeKind, std::pair<const char*, int>> kOps = {{NodeKind::kAdd, {"+", 1}},
                                                                       {NodeKind::kSub, {"-", 1}},
                                                                       {NodeKind::kMul, {"*", 2}},
                                                                       {NodeKind::kFloorDiv, {"//", 2}},
                                                                       {NodeKind::kFloorMod, {"%", 2}}};
  const auto* b = e.as<BinaryNode>();
  auto it = b ? kOps.find(e->kind()) : kOps.end();
  if (it == kOps.end()) return PrintPrimExpr(e);  // not an index map the parser reads; shown for diagnosis
  auto [op, precedence] = it->second;
  std::string text =
      absl::StrCat(IndexExprAsPython(b->a, precedence, false), " ", op, " ", IndexExprAsPython(b->b, precedence, true));
  bool parens = precedence < parent_precedence || (right_operand && precedence == parent_precedence);
  return parens ? absl::StrCat("(", text, ")") : text;
}

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

class Printer {
 public:
  std::string Name(const TraceValue& v) {
    auto it = names_.find({v.kind, v.i});
    if (it != names_.end()) return it->second;
    return "<undefined>";
  }
  std::string Define(const TraceValue& v) {
    const char* prefix = v.kind == TraceValue::kBlock ? "b" : v.kind == TraceValue::kLoop ? "l" : "v";
    std::string name = absl::StrCat(prefix, counter_++);
    names_[{v.kind, v.i}] = name;
    return name;
  }
  std::string Value(const TraceValue& v) {
    switch (v.kind) {
      case TraceValue::kNone: return "None";
      case TraceValue::kInt: return absl::StrCat(v.i);
      case TraceValue::kFloat: return absl::StrCat(v.f);
      case TraceValue::kBool: return v.i ? "True" : "False";
      case TraceValue::kString: return Quote(v.s);
      case TraceValue::kBlock:
      case TraceValue::kLoop:
      case TraceValue::kExpr: return Name(v);
      case TraceValue::kList: {
        std::vector<std::string> items;
        for (const TraceValue& x : v.list) items.push_back(Value(x));
        return absl::StrCat("[", absl::StrJoin(items, ", "), "]");
      }
      case TraceValue::kIndexMap: {
        std::vector<std::string> ins, outs;
        for (const Var& x : v.map.inputs) ins.push_back(x->name);
        for (const PrimExpr& e : v.map.outputs) outs.push_back(IndexExprAsPython(e));
        return absl::StrCat("lambda ", absl::StrJoin(ins, ", "), ": (", absl::StrJoin(outs, ", "),
                            outs.size() == 1 ? ",)" : ")");
      }
    }
    return "?";
  }

 private:
  std::map<std::pair<int, int64_t>, std::string> names_;
  int counter_ = 0;
};

// ---- Protobuf.

void IndexExprToProto(const PrimExpr& e, const std::vector<Var>& inputs, proto::IndexExprProto* out) {
  out->set_bits(e->dtype.bits());
  if (const auto* imm = e.as<IntImmNode>()) {
    out->set_op("int");
    out->set_value(imm->value);
    return;
  }
  if (const auto* v = e.as<TirVarNode>()) {
    out->set_op("var");
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].get() == v) out->set_value(static_cast<int64_t>(i));
    }
    return;
  }
  if (const auto* c = e.as<CastNode>()) return IndexExprToProto(c->value, inputs, out);
  const auto* b = e.as<BinaryNode>();
  static const std::map<NodeKind, const char*> kOps = {
      {NodeKind::kAdd, "+"},       {NodeKind::kSub, "-"},      {NodeKind::kMul, "*"},
      {NodeKind::kFloorDiv, "//"}, {NodeKind::kFloorMod, "%"}, {NodeKind::kDiv, "/"},
      {NodeKind::kMod, "mod"},     {NodeKind::kMin, "min"},    {NodeKind::kMax, "max"}};
  auto it = b ? kOps.find(e->kind()) : kOps.end();
  out->set_op(it == kOps.end() ? "?" : it->second);
  if (b != nullptr) {
    IndexExprToProto(b->a, inputs, out->add_args());
    IndexExprToProto(b->b, inputs, out->add_args());
  }
}

absl::StatusOr<PrimExpr> IndexExprFromProto(const proto::IndexExprProto& p, const std::vector<Var>& inputs) {
  DataType t = p.bits() == 32 ? DataType::Int32() : DataType::Int64();
  if (p.op() == "int") return IntImm(t, p.value());
  if (p.op() == "var") {
    if (p.value() < 0 || p.value() >= static_cast<int64_t>(inputs.size()))
      return absl::DataLossError("index map: bad variable");
    return PrimExpr(inputs[p.value()]);
  }
  static const std::map<std::string, NodeKind> kOps = {
      {"+", NodeKind::kAdd},       {"-", NodeKind::kSub},      {"*", NodeKind::kMul},
      {"//", NodeKind::kFloorDiv}, {"%", NodeKind::kFloorMod}, {"/", NodeKind::kDiv},
      {"mod", NodeKind::kMod},     {"min", NodeKind::kMin},    {"max", NodeKind::kMax}};
  auto it = kOps.find(p.op());
  if (it == kOps.end() || p.args_size() != 2)
    return absl::DataLossError(absl::StrCat("index map: bad operator ", p.op()));
  absl::StatusOr<PrimExpr> a = IndexExprFromProto(p.args(0), inputs);
  if (!a.ok()) return a;
  absl::StatusOr<PrimExpr> b = IndexExprFromProto(p.args(1), inputs);
  if (!b.ok()) return b;
  PrimExpr x = *a, y = *b;
  MatchTypes(&x, &y);
  return MakeBinary(it->second, x, y);
}

void ValueToProto(const TraceValue& v, proto::TraceValueProto* out) {
  switch (v.kind) {
    case TraceValue::kNone: out->set_none(true); break;
    case TraceValue::kInt: out->set_i(v.i); break;
    case TraceValue::kFloat: out->set_f(v.f); break;
    case TraceValue::kString: out->set_s(v.s); break;
    case TraceValue::kBool: out->set_b(v.i != 0); break;
    case TraceValue::kBlock: out->set_block(static_cast<int32_t>(v.i)); break;
    case TraceValue::kLoop: out->set_loop(static_cast<int32_t>(v.i)); break;
    case TraceValue::kExpr: out->set_expr(static_cast<int32_t>(v.i)); break;
    case TraceValue::kList:
      for (const TraceValue& x : v.list) ValueToProto(x, out->mutable_list()->add_items());
      if (v.list.empty()) out->mutable_list();
      break;
    case TraceValue::kIndexMap: {
      proto::IndexMapProto* m = out->mutable_index_map();
      for (const Var& x : v.map.inputs) m->add_inputs(x->name);
      for (const PrimExpr& e : v.map.outputs) IndexExprToProto(e, v.map.inputs, m->add_outputs());
      break;
    }
  }
}

absl::StatusOr<TraceValue> ValueFromProto(const proto::TraceValueProto& p) {
  switch (p.value_case()) {
    case proto::TraceValueProto::kNone: return TraceValue::None();
    case proto::TraceValueProto::kI: return TraceValue::Int(p.i());
    case proto::TraceValueProto::kF: return TraceValue::Float(p.f());
    case proto::TraceValueProto::kS: return TraceValue::Str(p.s());
    case proto::TraceValueProto::kB: return TraceValue::Bool(p.b());
    case proto::TraceValueProto::kBlock: return TraceValue::Block(BlockRV{p.block()});
    case proto::TraceValueProto::kLoop: return TraceValue::Loop(LoopRV{p.loop()});
    case proto::TraceValueProto::kExpr: return TraceValue::Expr(ExprRV{p.expr()});
    case proto::TraceValueProto::kList: {
      std::vector<TraceValue> items;
      for (const proto::TraceValueProto& x : p.list().items()) {
        absl::StatusOr<TraceValue> v = ValueFromProto(x);
        if (!v.ok()) return v;
        items.push_back(*v);
      }
      return TraceValue::List(items);
    }
    case proto::TraceValueProto::kIndexMap: {
      IndexMap m;
      for (const std::string& n : p.index_map().inputs()) m.inputs.push_back(MakeVar(n, DataType::Int64()));
      for (const proto::IndexExprProto& e : p.index_map().outputs()) {
        absl::StatusOr<PrimExpr> x = IndexExprFromProto(e, m.inputs);
        if (!x.ok()) return x.status();
        m.outputs.push_back(*x);
      }
      return TraceValue::Map(m);
    }
    case proto::TraceValueProto::VALUE_NOT_SET: return TraceValue::None();
  }
  return absl::DataLossError("unknown trace value");
}

constexpr char kTraceMagic[] = "mlc.trace";
constexpr uint32_t kTraceFormatVersion = 1;

}  // namespace

std::string Trace::AsPython() const {
  Printer p;
  std::string out = "sch = tir.Schedule(mod)\n";
  for (const Instruction& inst : instructions_) {
    const InstructionKindInfo* info = FindInstructionKind(inst.kind);
    std::vector<std::string> args;
    for (size_t i = 0; i < inst.inputs.size(); ++i) {
      std::string param = info && i < info->params.size() ? info->params[i] : absl::StrCat("arg", i);
      if (!param.empty() && param[0] == '*') {
        for (const TraceValue& x : inst.inputs[i].list) args.push_back(p.Value(x));
        continue;
      }
      bool is_default = false;
      if (info != nullptr) {
        for (const auto& [name, def] : info->defaults) is_default |= name == param && SameValue(def, inst.inputs[i]);
      }
      if (is_default) continue;
      std::string value = p.Value(inst.inputs[i]);
      if (param == "buffer" && inst.inputs[i].kind == TraceValue::kList)
        value = absl::StrCat("(", value.substr(1, value.size() - 2), ")");
      args.push_back(absl::StrCat(param, "=", value));
    }
    if (info != nullptr && info->has_decision) args.push_back(absl::StrCat("decision=", p.Value(inst.decision)));
    std::vector<std::string> outs;
    for (const TraceValue& o : inst.outputs) outs.push_back(p.Define(o));
    std::string call = absl::StrCat("sch.", inst.kind, "(", absl::StrJoin(args, ", "), ")");
    if (outs.empty()) {
      absl::StrAppend(&out, call, "\n");
    } else {
      absl::StrAppend(&out, absl::StrJoin(outs, ", "), " = ", call, "\n");
    }
  }
  return out;
}

Trace Trace::WithDecision(size_t index, TraceValue decision) const {
  Trace t = *this;
  if (index < t.instructions_.size()) t.instructions_[index].decision = std::move(decision);
  return t;
}

std::string Trace::Serialize() const {
  proto::TraceProto p;
  p.set_magic(kTraceMagic);
  p.set_format_version(kTraceFormatVersion);
  for (const Instruction& inst : instructions_) {
    proto::InstructionProto* ip = p.add_instructions();
    ip->set_kind(inst.kind);
    for (const TraceValue& v : inst.inputs) ValueToProto(v, ip->add_inputs());
    for (const TraceValue& v : inst.outputs) ValueToProto(v, ip->add_outputs());
    ValueToProto(inst.decision, ip->mutable_decision());
  }
  return p.SerializeAsString();
}

absl::StatusOr<Trace> Trace::Deserialize(const std::string& bytes, const std::string& source) {
  proto::TraceProto p;
  if (!p.ParseFromString(bytes))
    return absl::DataLossError(absl::StrCat(source, ": not a trace (truncated or corrupt)"));
  if (p.magic() != kTraceMagic) return absl::DataLossError(absl::StrCat(source, ": not a trace (bad magic)"));
  if (p.format_version() != kTraceFormatVersion) {
    return absl::FailedPreconditionError(absl::StrCat(source, ": trace format version ", p.format_version(),
                                                      " is not supported (this build reads version ",
                                                      kTraceFormatVersion, ")"));
  }
  Trace t;
  for (const proto::InstructionProto& ip : p.instructions()) {
    if (FindInstructionKind(ip.kind()) == nullptr) {
      return absl::DataLossError(absl::StrCat(source, ": unknown instruction ", ip.kind()));
    }
    Instruction inst;
    inst.kind = ip.kind();
    for (const auto& v : ip.inputs()) {
      absl::StatusOr<TraceValue> x = ValueFromProto(v);
      if (!x.ok()) return absl::Status(x.status().code(), absl::StrCat(source, ": ", x.status().message()));
      inst.inputs.push_back(*x);
    }
    for (const auto& v : ip.outputs()) {
      absl::StatusOr<TraceValue> x = ValueFromProto(v);
      if (!x.ok()) return absl::Status(x.status().code(), absl::StrCat(source, ": ", x.status().message()));
      inst.outputs.push_back(*x);
    }
    absl::StatusOr<TraceValue> d = ValueFromProto(ip.decision());
    if (!d.ok()) return absl::Status(d.status().code(), absl::StrCat(source, ": ", d.status().message()));
    inst.decision = *d;
    t.Append(std::move(inst));
  }
  return t;
}

}  // namespace tir
}  // namespace mlc
