/*! \file pattern.cc
 *  \brief Dataflow pattern matching and rewriting.
 */
#include "passes/pattern.h"

#include "ir/graph/op.h"
#include "ir/ops/op_attrs.h"
#include "ir/tir/analyzer.h"
#include "support/tensor_data.h"

namespace mlc {
namespace passes {
namespace {

Pattern Make(PatternNode::Kind kind, std::string name = "") {
  auto node = std::make_shared<PatternNode>();
  node->kind = kind;
  node->name = std::move(name);
  return Pattern(node);
}

bool MatchInto(const Pattern& p, const relax::Expr& expr, const LookupFn& lookup, Match* out, int depth) {
  const PatternNode* node = p.get();
  if (depth > 64) return false;
  switch (node->kind) {
    case PatternNode::kWildcard: out->Set(node, expr); return true;
    case PatternNode::kVar:
      if (expr.as<relax::VarNode>() == nullptr) return false;
      out->Set(node, expr);
      return true;
    case PatternNode::kConst:
      if (expr->kind() != NodeKind::kConstant) return false;
      out->Set(node, expr);
      return true;
    case PatternNode::kOr:
      for (const Pattern& alt : node->args) {
        Match trial = *out;
        if (MatchInto(alt, expr, lookup, &trial, depth + 1)) {
          *out = trial;
          out->Set(node, expr);
          return true;
        }
      }
      return false;
    case PatternNode::kOp:
    case PatternNode::kCallTIR: {
      relax::Expr value = expr;
      // Look through a variable bound to a call.
      if (const auto* var = expr.as<relax::VarNode>()) {
        std::optional<relax::Expr> bound = lookup(relax::Var(var));
        if (!bound) return false;
        value = *bound;
      }
      const auto* call = value.as<relax::CallNode>();
      if (call == nullptr) return false;
      const auto* op = call->op.as<relax::OpNode>();
      if (op == nullptr) return false;
      std::vector<relax::Expr> args;
      if (node->kind == PatternNode::kOp) {
        if (op->name() != node->name) return false;
        args = call->args;
      } else {
        if (op->name() != "call_tir") return false;
        const std::string& callee = call->args[0].as<relax::GlobalVarNode>()->name;
        if (!node->name.empty() && callee != node->name) return false;
        args = call->args[1].as<relax::TupleNode>()->fields;
      }
      if (node->has_args) {
        if (args.size() != node->args.size()) return false;
        for (size_t i = 0; i < args.size(); ++i) {
          if (!MatchInto(node->args[i], args[i], lookup, out, depth + 1)) return false;
        }
      }
      out->Set(node, value);
      return true;
    }
  }
  return false;
}

class PatternRewriter : public relax::ExprMutator {
 public:
  PatternRewriter(const Pattern& pattern, const RewriteFn& rewrite, relax::BlockBuilder* builder)
      : relax::ExprMutator(builder), pattern_(pattern), rewrite_(rewrite) {}

 protected:
  relax::Expr VisitBindingValue_(const relax::VarBindingNode* binding, const relax::CallNode* call) override {
    relax::Expr value = relax::ExprMutator::VisitBindingValue_(binding, call);
    LookupFn lookup = [this](const relax::Var& v) { return LookupBinding(v); };
    std::optional<Match> m = MatchPattern(pattern_, value, lookup);
    if (!m) return value;
    return rewrite_(value, *m, &builder_);
  }

 private:
  Pattern pattern_;
  RewriteFn rewrite_;
};

}  // namespace

Pattern Pattern::operator()(std::vector<Pattern> args) const {
  auto node = std::make_shared<PatternNode>(*node_);
  node->args = std::move(args);
  node->has_args = true;
  return Pattern(node);
}

Pattern Pattern::operator|(const Pattern& other) const {
  auto node = std::make_shared<PatternNode>();
  node->kind = PatternNode::kOr;
  node->args = {*this, other};
  return Pattern(node);
}

Pattern Wildcard() { return Make(PatternNode::kWildcard); }
Pattern IsVar() { return Make(PatternNode::kVar); }
Pattern IsConst() { return Make(PatternNode::kConst); }
Pattern IsOp(const std::string& name) { return Make(PatternNode::kOp, name); }
Pattern IsCallTIR(const std::string& callee) { return Make(PatternNode::kCallTIR, callee); }

relax::Expr Match::operator[](const Pattern& p) const {
  auto it = map_.find(p.get());
  return it == map_.end() ? relax::Expr() : it->second;
}

std::optional<Match> MatchPattern(const Pattern& pattern, const relax::Expr& expr, const LookupFn& lookup) {
  Match m;
  // The root must match the expression itself, not through a variable.
  if (expr.as<relax::VarNode>() != nullptr &&
      (pattern.get()->kind == PatternNode::kOp || pattern.get()->kind == PatternNode::kCallTIR)) {
    return std::nullopt;
  }
  if (!MatchInto(pattern, expr, lookup, &m, 0)) return std::nullopt;
  return m;
}

absl::StatusOr<relax::Function> Rewrite(const Pattern& pattern, const relax::Function& func, const RewriteFn& rewrite,
                                        relax::BlockBuilder* builder) {
  PatternRewriter rewriter(pattern, rewrite, builder);
  return rewriter.VisitFunction(func);
}

namespace {
class UseCounter : public relax::ExprVisitor {
 public:
  std::map<const relax::VarNode*, int> uses;

 protected:
  void VisitExpr_(const relax::VarNode* op) override { ++uses[op]; }
};
}  // namespace

std::optional<std::vector<double>> ConstantValues(const relax::Expr& e) {
  const auto* c = e.as<relax::ConstantNode>();
  if (c == nullptr) return std::nullopt;
  return ValuesAsDouble(c->data);
}

std::optional<TensorData> PerChannelValues(const relax::Expr& e, int64_t channels) {
  const auto* c = e.as<relax::ConstantNode>();
  if (c == nullptr || c->data.dtype() != DataType::Float32() || c->data.NumElements() != channels) return std::nullopt;
  const std::vector<int64_t>& s = c->data.shape();
  bool per_channel = (s.size() == 3 && s[0] == channels) || (s.size() == 4 && s[0] == 1 && s[1] == channels);
  if (!per_channel) return std::nullopt;
  return TensorData(DataType::Float32(), {channels}, c->data.bytes());
}

const relax::TensorStructInfoNode* StaticFloat32(const relax::Expr& e, size_t rank) {
  const auto* t = e->struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || !t->shape || t->dtype != DataType::Float32() || t->shape->size() != rank) return nullptr;
  return t;
}

relax::Expr CallDpsPacked(const std::string& name, std::vector<relax::Expr> args, const relax::Expr& like) {
  return relax::MakeCall(relax::GetOpOrDie("call_dps_packed"),
                         {relax::MakeExternFunc(name), relax::MakeTuple(std::move(args))}, {}, {like->struct_info()});
}

const relax::TupleNode* PackedCallOperands(const relax::Expr& e, const std::string& name) {
  const auto* call = e.as<relax::CallNode>();
  const auto* op = call != nullptr ? call->op.as<relax::OpNode>() : nullptr;
  if (op == nullptr || op->name() != "call_dps_packed" || call->args.size() != 2) return nullptr;
  const auto* callee = call->args[0].as<relax::ExternFuncNode>();
  if (callee == nullptr || callee->global_symbol != name) return nullptr;
  return call->args[1].as<relax::TupleNode>();
}

std::vector<tir::PrimExpr> DimsOf(const relax::Expr& e) {
  const auto* t = e.defined() ? e->struct_info().as<relax::TensorStructInfoNode>() : nullptr;
  return t == nullptr ? std::vector<tir::PrimExpr>{} : t->Dims();
}

bool SameDim(const tir::PrimExpr& a, const tir::PrimExpr& b) { return tir::ExprDeepEqual(a, b); }

relax::Expr MakePermuteDims(const relax::Expr& x, std::vector<int64_t> axes) {
  Attrs attrs;
  attrs["axes"] = std::move(axes);
  return relax::MakeCall(relax::GetOpOrDie("permute_dims"), {x}, attrs);
}

relax::Expr MakeConstantPad(const relax::Expr& x, std::vector<int64_t> pad_width, double value) {
  relax::PadAttrs pad;
  pad.pad_width = std::move(pad_width);
  pad.pad_value = value;
  pad.pad_mode = "constant";
  return relax::MakeCall(relax::GetOpOrDie("nn.pad"), {x}, relax::ToAttrs(pad));
}

bool PermutesBy(const relax::Expr& call, const std::vector<int64_t>& axes) {
  const auto* c = call.as<relax::CallNode>();
  if (c == nullptr) return false;
  auto attrs = relax::ParseAttrs<relax::PermuteDimsAttrs>(c->attrs);
  return attrs.ok() && attrs->axes == axes;
}

std::map<const relax::VarNode*, int> CountVarUses(const relax::Function& func) {
  UseCounter counter;
  counter.VisitFunction(func.get());
  return counter.uses;
}

}  // namespace passes
}  // namespace mlc
