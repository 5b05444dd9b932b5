/*! \file symbolic_shape.cc
 *  \brief Decoding, binding and evaluation of symbolic dimensions.
 */
#include "vm/symbolic_shape.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "vm/executable_format.h"

namespace mlc {
namespace vm {
namespace {

/*! \brief The variables of `dim` still unbound (-1) in `vars`. */
std::vector<int> UnboundVars(const DimProgram& dim, const std::vector<int64_t>& vars);

int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

std::vector<int> UnboundVars(const DimProgram& dim, const std::vector<int64_t>& vars) {
  std::vector<int> out;
  for (int v : dim.VarsUsed()) {
    if (vars[v] < 0) out.push_back(v);
  }
  return out;
}

}  // namespace

DimProgram DimProgram::Constant(int64_t value) {
  DimProgram p;
  p.steps_.push_back({Step::kConst, value});
  return p;
}

absl::StatusOr<DimProgram> DimProgram::Decode(const proto::DimExpr& e, int num_vars) {
  DimProgram p;
  if (absl::Status s = p.Append(e, num_vars, 0); !s.ok()) return s;
  return p;
}

absl::Status DimProgram::Append(const proto::DimExpr& e, int num_vars, int depth) {
  if (depth > kMaxDimExprDepth) return absl::DataLossError("dimension expression nested too deeply");
  switch (e.kind_case()) {
    case proto::DimExpr::kValue: steps_.push_back({Step::kConst, e.value()}); return absl::OkStatus();
    case proto::DimExpr::kVar:
      if (e.var() < 0 || e.var() >= num_vars)
        return absl::DataLossError(absl::StrCat("shape variable ", e.var(), " out of range"));
      steps_.push_back({Step::kVar, e.var()});
      return absl::OkStatus();
    case proto::DimExpr::kBinary: {
      const proto::DimBinary& b = e.binary();
      if (absl::Status s = Append(b.a(), num_vars, depth + 1); !s.ok()) return s;
      if (absl::Status s = Append(b.b(), num_vars, depth + 1); !s.ok()) return s;
      Step::Op op;
      switch (b.op()) {
        case proto::DimBinary::ADD: op = Step::kAdd; break;
        case proto::DimBinary::SUB: op = Step::kSub; break;
        case proto::DimBinary::MUL: op = Step::kMul; break;
        case proto::DimBinary::FLOOR_DIV: op = Step::kFloorDiv; break;
        case proto::DimBinary::FLOOR_MOD: op = Step::kFloorMod; break;
        case proto::DimBinary::MIN: op = Step::kMin; break;
        case proto::DimBinary::MAX: op = Step::kMax; break;
        default: return absl::DataLossError(absl::StrCat("unknown dimension operator ", b.op()));
      }
      steps_.push_back({op, 0});
      return absl::OkStatus();
    }
    case proto::DimExpr::KIND_NOT_SET: break;
  }
  return absl::DataLossError("empty dimension expression");
}

absl::StatusOr<int64_t> DimProgram::Evaluate(const std::vector<int64_t>& vars) const {
  int64_t stack[kMaxDimExprDepth + 2];
  int top = 0;
  for (const Step& s : steps_) {
    if (s.op == Step::kConst || s.op == Step::kVar) {
      if (top >= kMaxDimExprDepth + 2) return absl::InvalidArgumentError("dimension expression too deep");
      if (s.op == Step::kVar && vars[s.value] < 0)
        return absl::InvalidArgumentError("a shape variable is used before it is bound");
      stack[top++] = s.op == Step::kConst ? s.value : vars[s.value];
      continue;
    }
    int64_t b = stack[--top], a = stack[--top], r = 0;
    bool overflow = false;
    switch (s.op) {
      case Step::kAdd: overflow = __builtin_add_overflow(a, b, &r); break;
      case Step::kSub: overflow = __builtin_sub_overflow(a, b, &r); break;
      case Step::kMul: overflow = __builtin_mul_overflow(a, b, &r); break;
      case Step::kFloorDiv:
      case Step::kFloorMod:
        if (b == 0) return absl::InvalidArgumentError("a dimension divides by zero");
        if (a == INT64_MIN && b == -1) return absl::InvalidArgumentError("a dimension overflows");
        r = s.op == Step::kFloorDiv ? FloorDiv(a, b) : a - FloorDiv(a, b) * b;
        break;
      case Step::kMin: r = a < b ? a : b; break;
      case Step::kMax: r = a > b ? a : b; break;
      case Step::kConst:
      case Step::kVar: break;
    }
    if (overflow) return absl::InvalidArgumentError("a dimension overflows int64");
    stack[top++] = r;
  }
  return stack[0];
}

DimProgram::Linear DimProgram::AsLinear() const {
  Linear l;
  if (steps_.size() == 1 && steps_[0].op == Step::kVar) {
    l.var = static_cast<int>(steps_[0].value);
    return l;
  }
  if (steps_.size() != 3) return l;
  const Step &a = steps_[0], &b = steps_[1], &op = steps_[2];
  const Step* var = a.op == Step::kVar ? &a : b.op == Step::kVar ? &b : nullptr;
  const Step* constant = a.op == Step::kConst ? &a : b.op == Step::kConst ? &b : nullptr;
  if (var == nullptr || constant == nullptr) return l;
  if (op.op == Step::kMul && constant->value > 0) {
    l.scale = constant->value;
  } else if (op.op == Step::kAdd) {
    l.offset = constant->value;
  } else if (op.op == Step::kSub && var == &a) {
    l.offset = -constant->value;
  } else {
    return l;
  }
  l.var = static_cast<int>(var->value);
  return l;
}

std::string DimProgram::ToString(const std::vector<std::string>& names) const {
  std::vector<std::string> stack;
  for (const Step& s : steps_) {
    if (s.op == Step::kConst) {
      stack.push_back(absl::StrCat(s.value));
      continue;
    }
    if (s.op == Step::kVar) {
      stack.push_back(static_cast<size_t>(s.value) < names.size() ? names[s.value] : absl::StrCat("v", s.value));
      continue;
    }
    std::string b = stack.back();
    stack.pop_back();
    std::string a = stack.back();
    stack.pop_back();
    const char* op = s.op == Step::kAdd        ? " + "
                     : s.op == Step::kSub      ? " - "
                     : s.op == Step::kMul      ? " * "
                     : s.op == Step::kFloorDiv ? " // "
                                               : " % ";
    if (s.op == Step::kMin || s.op == Step::kMax) {
      stack.push_back(absl::StrCat(s.op == Step::kMin ? "min(" : "max(", a, ", ", b, ")"));
    } else {
      stack.push_back(absl::StrCat("(", a, op, b, ")"));
    }
  }
  std::string out = stack.empty() ? "" : stack[0];
  if (out.size() > 2 && out.front() == '(' && out.back() == ')') out = out.substr(1, out.size() - 2);
  return out;
}

std::vector<int> DimProgram::VarsUsed() const {
  std::vector<int> out;
  for (const Step& s : steps_) {
    if (s.op == Step::kVar) out.push_back(static_cast<int>(s.value));
  }
  return out;
}

absl::StatusOr<DeclaredShape> DecodeShape(const google::protobuf::RepeatedPtrField<proto::DimExpr>& dims,
                                          int num_vars) {
  DeclaredShape shape;
  for (const proto::DimExpr& d : dims) {
    absl::StatusOr<DimProgram> p = DimProgram::Decode(d, num_vars);
    if (!p.ok()) return p.status();
    shape.push_back(*std::move(p));
  }
  return shape;
}

absl::Status BindShapes(const std::vector<const DeclaredShape*>& declared,
                        const std::vector<const std::vector<int64_t>*>& actual,
                        const std::vector<std::string>& var_names, const std::function<std::string(size_t)>& describe,
                        std::vector<int64_t>* vars) {
  // Where each variable was bound, for messages (kBefore: bound before this call).
  constexpr size_t kBefore = static_cast<size_t>(-1);
  std::vector<std::pair<size_t, size_t>> bound_at(vars->size(), {kBefore, 0});
  for (size_t i = 0; i < declared.size(); ++i) {
    if (declared[i] == nullptr) continue;
    if (actual[i]->size() != declared[i]->size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(describe(i), ": expected ", declared[i]->size(), " dimensions, got ", actual[i]->size()));
    }
    for (size_t d = 0; d < declared[i]->size(); ++d) {
      DimProgram::Linear l = (*declared[i])[d].AsLinear();
      if (l.var < 0 || (*vars)[l.var] >= 0) continue;
      // v * scale + offset = the dimension; one that does not divide is caught by the check below.
      int64_t rest = (*actual[i])[d] - l.offset;
      if (rest < 0 || rest % l.scale != 0) continue;
      (*vars)[l.var] = rest / l.scale;
      bound_at[l.var] = {i, d};
    }
  }
  for (size_t i = 0; i < declared.size(); ++i) {
    if (declared[i] == nullptr) continue;
    for (size_t d = 0; d < declared[i]->size(); ++d) {
      const DimProgram& dim = (*declared[i])[d];
      if (std::vector<int> unbound = UnboundVars(dim, *vars); !unbound.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(describe(i), ": dimension ", d, " is ", (*actual[i])[d],
                                                       ", which is not ", dim.ToString(var_names), " for any ",
                                                       var_names[unbound[0]]));
      }
      absl::StatusOr<int64_t> expected = dim.Evaluate(*vars);
      if (!expected.ok())
        return absl::InvalidArgumentError(
            absl::StrCat(describe(i), ": dimension ", d, ": ", expected.status().message()));
      int64_t got = (*actual[i])[d];
      if (*expected == got) continue;
      std::string what = dim.ToString(var_names);
      std::string because;
      int v = dim.AsVar();
      if (v >= 0 && bound_at[v].first == kBefore) {
        because = absl::StrCat(" (", what, " = ", *expected, ", bound earlier)");
      } else if (v >= 0) {
        because = absl::StrCat(" (", what, " = ", *expected, " from ", describe(bound_at[v].first), " dimension ",
                               bound_at[v].second, ")");
      } else if (what != absl::StrCat(*expected)) {
        because = absl::StrCat(" (", what, ")");
      }
      return absl::InvalidArgumentError(
          absl::StrCat(describe(i), ": dimension ", d, " is ", got, ", expected ", *expected, because));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int64_t>> EvaluateShape(const DeclaredShape& shape, const std::vector<int64_t>& vars,
                                                   const std::vector<std::string>& var_names) {
  std::vector<int64_t> out;
  out.reserve(shape.size());
  for (const DimProgram& d : shape) {
    absl::StatusOr<int64_t> v = d.Evaluate(vars);
    if (!v.ok()) return v.status();
    if (*v < 0)
      return absl::InvalidArgumentError(absl::StrCat("dimension ", d.ToString(var_names), " is negative (", *v, ")"));
    out.push_back(*v);
  }
  return out;
}

}  // namespace vm
}  // namespace mlc
