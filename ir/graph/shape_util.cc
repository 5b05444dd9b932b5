/*! \file shape_util.cc */
#include "ir/graph/shape_util.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/tir/shape_expr.h"

namespace mlc {
namespace relax {

bool IsTailSlice(int64_t begin, int64_t end, int64_t step) {
  return begin < 0 && end == std::numeric_limits<int64_t>::max() && step == 1;
}

tir::PrimExpr ArangeLength(const tir::PrimExpr& limit, int64_t start, int64_t step) {
  // The limit is a size, so only a positive start can make the count negative.
  tir::PrimExpr count =
      tir::FloorDiv(tir::operator+(tir::Cast(DataType::Int64(), limit), tir::I64(step - 1 - start)), tir::I64(step));
  return tir::Analyzer().Simplify(start > 0 ? tir::Max(tir::I64(0), count) : count);
}

int64_t ArangeLength(double start, double limit, double step) {
  return std::max<int64_t>(0, static_cast<int64_t>(std::ceil((limit - start) / step)));
}

SliceRange ClampSlice(int64_t dim, int64_t begin, int64_t end, int64_t step) {
  auto clamp = [dim](int64_t v, int64_t lo, int64_t hi) { return std::min(std::max(v < 0 ? v + dim : v, lo), hi); };
  int64_t b = step > 0 ? clamp(begin, 0, dim) : clamp(begin, -1, dim - 1);
  int64_t e = step > 0 ? clamp(end, 0, dim) : clamp(end, -1, dim - 1);
  int64_t extent = step > 0 ? (e - b + step - 1) / step : (b - e - step - 1) / (-step);
  return {b, std::max<int64_t>(0, extent)};
}

SliceRangeExpr ClampSlice(const tir::PrimExpr& dim, int64_t begin, int64_t end, int64_t step) {
  if (const auto* n = dim.as<tir::IntImmNode>()) {
    SliceRange r = ClampSlice(n->value, begin, end, step);
    return {tir::I64(r.start), tir::I64(r.extent)};
  }
  tir::PrimExpr n = tir::Cast(DataType::Int64(), dim);
  if (IsTailSlice(begin, end, step)) return {tir::operator+(n, tir::I64(begin)), tir::I64(-begin)};
  // Clamps v into [lo, n + hi_offset]; lo is 0 going forward and -1 going backward.
  constexpr int64_t kUnbounded = std::numeric_limits<int32_t>::max();
  const int64_t lo = step > 0 ? 0 : -1, hi_offset = step > 0 ? 0 : -1;
  auto clamp = [&](int64_t v) -> tir::PrimExpr {
    if (v >= kUnbounded) return tir::operator+(n, tir::I64(hi_offset));
    if (v <= -kUnbounded) return tir::I64(lo);
    if (v == 0 && step > 0) return tir::I64(0);  // lengths are never negative
    if (v >= 0) return tir::Min(tir::I64(v), tir::operator+(n, tir::I64(hi_offset)));
    return tir::Max(tir::operator+(n, tir::I64(v)), tir::I64(lo));
  };
  tir::PrimExpr b = clamp(begin), e = clamp(end);
  tir::PrimExpr span = step > 0 ? tir::operator-(e, b) : tir::operator-(b, e);
  const int64_t s = step > 0 ? step : -step;
  tir::PrimExpr extent = tir::Max(tir::FloorDiv(tir::operator+(span, tir::I64(s - 1)), tir::I64(s)), tir::I64(0));
  tir::Analyzer analyzer;
  return {analyzer.Simplify(b), analyzer.Simplify(extent)};
}

absl::Status CheckWindowAttrs(const std::vector<int64_t>& kernel, const std::vector<int64_t>& strides,
                              const std::vector<int64_t>& dilation, const std::vector<int64_t>& padding) {
  auto check = [](const std::vector<int64_t>& v, const char* name, int64_t least) -> absl::Status {
    for (int64_t x : v) {
      if (x < least) {
        return absl::InvalidArgumentError(
            absl::StrCat(name, " ", ShapeToString(v), " must be ", least > 0 ? "positive" : "non-negative"));
      }
    }
    return absl::OkStatus();
  };
  if (absl::Status s = check(kernel, "kernel size", 1); !s.ok()) return s;
  if (absl::Status s = check(strides, "strides", 1); !s.ok()) return s;
  if (absl::Status s = check(dilation, "dilation", 1); !s.ok()) return s;
  return check(padding, "padding", 0);
}

int64_t WindowExtent(int64_t in, int64_t pad_before, int64_t pad_after, int64_t kernel, int64_t dilation,
                     int64_t stride, bool ceil_mode) {
  if (kernel < 1 || dilation < 1 || stride < 1) return 0;  // CheckWindowAttrs says which
  int64_t span = in + pad_before + pad_after - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad_before) --out;
  return out;
}

int64_t TrailingPaddingFor(int64_t out, int64_t in, int64_t pad_before, int64_t pad_after, int64_t kernel,
                           int64_t dilation, int64_t stride) {
  // Floor mode gives `out` windows when the padded input spans (out - 1) * stride + the window.
  return std::max(pad_after, (out - 1) * stride + dilation * (kernel - 1) + 1 - in - pad_before);
}

std::string ShapeToString(const std::vector<int64_t>& shape) {
  return absl::StrCat("(", absl::StrJoin(shape, ", "), shape.size() == 1 ? ",)" : ")");
}

absl::StatusOr<std::vector<int64_t>> BroadcastShapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("shapes ", ShapeToString(a), " and ", ShapeToString(b), " cannot be broadcast together"));
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

namespace {

/*! \brief Whether `e` is a polynomial: constants and variables under + - *. */
bool IsPolynomial(const tir::PrimExpr& e) {
  switch (e->kind()) {
    case NodeKind::kIntImm:
    case NodeKind::kTirVar: return true;
    case NodeKind::kCast: return IsPolynomial(e.as<tir::CastNode>()->value);
    case NodeKind::kAdd:
    case NodeKind::kSub:
    case NodeKind::kMul: {
      const auto* b = static_cast<const tir::BinaryNode*>(e.get());
      return IsPolynomial(b->a) && IsPolynomial(b->b);
    }
    default: return false;
  }
}

/*! \brief A polynomial's value, in wrapping arithmetic (a ring homomorphism of the integers). */
uint64_t EvalWrapping(const tir::PrimExpr& e, const std::vector<tir::Var>& vars, const std::vector<uint64_t>& values) {
  switch (e->kind()) {
    case NodeKind::kIntImm: return static_cast<uint64_t>(e.as<tir::IntImmNode>()->value);
    case NodeKind::kTirVar:
      for (size_t i = 0; i < vars.size(); ++i) {
        if (vars[i].get() == e.get()) return values[i];
      }
      return 0;
    case NodeKind::kCast: return EvalWrapping(e.as<tir::CastNode>()->value, vars, values);
    default: {
      const auto* b = static_cast<const tir::BinaryNode*>(e.get());
      uint64_t x = EvalWrapping(b->a, vars, values), y = EvalWrapping(b->b, vars, values);
      return e->kind() == NodeKind::kAdd ? x + y : e->kind() == NodeKind::kSub ? x - y : x * y;
    }
  }
}

}  // namespace

absl::StatusOr<std::vector<int64_t>> KnownValues(const std::vector<tir::PrimExpr>& dims,
                                                 const std::vector<int>& need_static, const std::string& what) {
  std::vector<int64_t> out;
  for (const tir::PrimExpr& d : dims) {
    const int64_t* v = tir::AsConstInt(d);
    out.push_back(v != nullptr ? *v : -1);
  }
  const int n = static_cast<int>(out.size());
  for (int d : need_static) {
    int axis = d < 0 ? d + n : d;
    if (axis < 0 || axis >= n) continue;  // the caller's rank check says what is wrong
    if (out[axis] < 0) {
      return absl::UnimplementedError(absl::StrCat(what, " ", DimsToString(dims), ": dimension ", axis,
                                                   " must be static (only the others may be symbolic)"));
    }
  }
  return out;
}

bool DimsEqual(const tir::PrimExpr& a, const tir::PrimExpr& b) {
  const int64_t* x = tir::AsConstInt(a);
  const int64_t* y = tir::AsConstInt(b);
  if (x != nullptr && y != nullptr) return *x == *y;
  if (tir::Analyzer().CanProveEqual(tir::Cast(DataType::Int64(), a), tir::Cast(DataType::Int64(), b))) return true;
  // Polynomials the simplifier does not bring to one form (s * (b * 4) * 64 against s * b * 256):
  // equal polynomials agree everywhere, and distinct ones of low degree differ at all but a
  // vanishing fraction of random points (Schwartz-Zippel), so agreement at 16 of them decides.
  if (!IsPolynomial(a) || !IsPolynomial(b)) return false;
  std::vector<tir::Var> vars;
  tir::CollectVars(a, &vars);
  tir::CollectVars(b, &vars);
  uint64_t state = 0x9e3779b97f4a7c15ull;
  for (int trial = 0; trial < 16; ++trial) {
    std::vector<uint64_t> values;
    for (size_t i = 0; i < vars.size(); ++i) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      values.push_back(state >> 11);
    }
    if (EvalWrapping(a, vars, values) != EvalWrapping(b, vars, values)) return false;
  }
  return true;
}

namespace {
thread_local DimAssumptions* current_assumptions = nullptr;
}  // namespace

DimAssumptions::DimAssumptions() : outer_(current_assumptions) { current_assumptions = this; }
DimAssumptions::~DimAssumptions() { current_assumptions = outer_; }
DimAssumptions* DimAssumptions::Current() { return current_assumptions; }

std::optional<tir::PrimExpr> UnifyDims(const tir::PrimExpr& a, const tir::PrimExpr& b) {
  if (DimsEqual(a, b)) return a;
  const int64_t* ca = tir::AsConstInt(a);
  const int64_t* cb = tir::AsConstInt(b);
  DimAssumptions* scope = DimAssumptions::Current();
  if ((ca != nullptr && cb != nullptr) || scope == nullptr) return std::nullopt;
  DimAssumptions::Equality e = cb != nullptr ? DimAssumptions::Equality{b, a} : DimAssumptions::Equality{a, b};
  scope->assumed_.push_back(e);
  return e.kept;
}

tir::PrimExpr InferredReshapeDim(const std::vector<tir::PrimExpr>& input, const std::vector<tir::PrimExpr>& others) {
  std::vector<tir::PrimExpr> numerator = input, denominator;
  for (const tir::PrimExpr& o : others) {
    auto same =
        std::find_if(numerator.begin(), numerator.end(), [&](const tir::PrimExpr& d) { return DimsEqual(d, o); });
    if (same != numerator.end()) {
      numerator.erase(same);
    } else {
      denominator.push_back(o);
    }
  }
  tir::PrimExpr num = tir::I64(1), den = tir::I64(1);
  for (const tir::PrimExpr& d : numerator) num = tir::operator*(num, d);
  for (const tir::PrimExpr& d : denominator) den = tir::operator*(den, d);
  return tir::Analyzer().Simplify(tir::FloorDiv(num, den));
}

std::string DimsToString(const std::vector<tir::PrimExpr>& dims) {
  std::vector<std::string> parts;
  for (const tir::PrimExpr& d : dims) parts.push_back(tir::ShapeExprToString(d));
  if (parts.size() == 1) return absl::StrCat("(", parts[0], ",)");
  return absl::StrCat("(", absl::StrJoin(parts, ", "), ")");
}

absl::StatusOr<std::vector<tir::PrimExpr>> BroadcastDims(const std::vector<tir::PrimExpr>& a,
                                                         const std::vector<tir::PrimExpr>& b) {
  size_t n = std::max(a.size(), b.size());
  std::vector<tir::PrimExpr> out(n);
  for (size_t i = 0; i < n; ++i) {
    tir::PrimExpr da = i < n - a.size() ? tir::I64(1) : a[i - (n - a.size())];
    tir::PrimExpr db = i < n - b.size() ? tir::I64(1) : b[i - (n - b.size())];
    const int64_t* ca = tir::AsConstInt(da);
    const int64_t* cb = tir::AsConstInt(db);
    if (ca != nullptr && *ca == 1) {
      out[i] = db;
    } else if (cb != nullptr && *cb == 1) {
      out[i] = da;
    } else if (std::optional<tir::PrimExpr> common = UnifyDims(da, db)) {
      out[i] = *common;
    } else {
      bool decided = ca != nullptr && cb != nullptr;
      return absl::InvalidArgumentError(absl::StrCat(
          "shapes ", DimsToString(a), " and ", DimsToString(b), " cannot be broadcast together",
          decided ? ""
                  : absl::StrCat(" (", tir::ShapeExprToString(da), " and ", tir::ShapeExprToString(db),
                                 " are not provably equal, and neither is 1; R.match_cast one operand to the other's "
                                 "shape to check it when the program runs)")));
    }
  }
  return out;
}

}  // namespace relax
}  // namespace mlc
