/*! \file elementwise.cc
 *  \brief Elementwise operators: broadcasting binary arithmetic and unary functions.
 *
 *  A unary operator is one row of kUnaryOps: its name, what it computes, and the scalar
 *  formula its legalization applies to every element. Adding one is adding a row (and the
 *  importers' table entries that map framework names to it).
 */
#include "absl/strings/str_cat.h"
#include "ir/ops/op_util.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/topi/topi.h"

namespace mlc {
namespace relax {
namespace {

using tir::PrimExpr;

absl::StatusOr<StructInfo> InferBroadcastBinary(const CallNode& call) {
  absl::StatusOr<const TensorStructInfoNode*> lhs = TensorArg(call, 0);
  if (!lhs.ok()) return lhs.status();
  absl::StatusOr<const TensorStructInfoNode*> rhs = TensorArg(call, 1);
  if (!rhs.ok()) return rhs.status();
  DataType dtype = (*lhs)->dtype;
  if (!(*lhs)->dtype.is_void() && !(*rhs)->dtype.is_void() && (*lhs)->dtype != (*rhs)->dtype) {
    return absl::InvalidArgumentError(
        absl::StrCat("dtype mismatch: ", (*lhs)->dtype.ToString(), " vs ", (*rhs)->dtype.ToString()));
  }
  if (dtype.is_void()) dtype = (*rhs)->dtype;
  if ((*lhs)->HasKnownShape() && (*rhs)->HasKnownShape()) {
    absl::StatusOr<std::vector<PrimExpr>> dims = BroadcastDims((*lhs)->Dims(), (*rhs)->Dims());
    if (!dims.ok()) return dims.status();
    return TensorSInfoOfDims(*dims, dtype);
  }
  int ndim = ((*lhs)->ndim < 0 || (*rhs)->ndim < 0) ? -1 : std::max((*lhs)->ndim, (*rhs)->ndim);
  return TensorSInfoUnknownShape(dtype, ndim);
}

/*! \brief Comparisons and logical operators: broadcast like arithmetic, the result is bool. */
absl::StatusOr<StructInfo> InferCompare(const CallNode& call) {
  absl::StatusOr<StructInfo> out = InferBroadcastBinary(call);
  if (!out.ok()) return out;
  const auto* t = out->as<TensorStructInfoNode>();
  if (t->HasKnownShape()) return TensorSInfoOfDims(t->Dims(), DataType::Bool());
  return TensorSInfoUnknownShape(DataType::Bool(), t->ndim);
}

absl::StatusOr<StructInfo> InferUnary(const CallNode& call) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  return call.args[0]->struct_info();
}

struct BinaryOpDef {
  const char* name;
  const char* description;
  absl::StatusOr<te::Tensor> (*compute)(const te::Tensor&, const te::Tensor&);
};

const BinaryOpDef kBinaryOps[] = {
    {"add", "x1 + x2 with NumPy broadcasting", topi::Add},
    {"subtract", "x1 - x2 with NumPy broadcasting", topi::Subtract},
    {"multiply", "x1 * x2 with NumPy broadcasting", topi::Multiply},
    {"divide", "x1 / x2 with NumPy broadcasting", topi::Divide},
    {"maximum", "elementwise max with NumPy broadcasting", topi::Maximum},
    {"minimum", "elementwise min with NumPy broadcasting", topi::Minimum},
    {"power", "x1 ** x2 with NumPy broadcasting", topi::Power},
    {"floor_mod", "x1 % x2 as NumPy computes it (the divisor's sign), with broadcasting", topi::FloorMod},
    {"fmod", "C's fmod of x1 and x2 (the dividend's sign), with broadcasting", topi::TruncMod},
};

struct CompareOpDef {
  const char* name;
  const char* description;
};

const CompareOpDef kCompareOps[] = {
    {"equal", "x1 == x2 with NumPy broadcasting; bool"},
    {"not_equal", "x1 != x2 with NumPy broadcasting; bool"},
    {"less", "x1 < x2 with NumPy broadcasting; bool"},
    {"less_equal", "x1 <= x2 with NumPy broadcasting; bool"},
    {"greater", "x1 > x2 with NumPy broadcasting; bool"},
    {"greater_equal", "x1 >= x2 with NumPy broadcasting; bool"},
    {"logical_and", "x1 and x2 of bool tensors, broadcasting"},
    {"logical_or", "x1 or x2 of bool tensors, broadcasting"},
    {"logical_xor", "x1 xor x2 of bool tensors, broadcasting"},
};

struct UnaryOpDef {
  const char* name;     // the operator
  const char* te_name;  // the PrimFunc legalization makes
  const char* description;
  PrimExpr (*formula)(const PrimExpr& x);
};

const UnaryOpDef kUnaryOps[] = {
    {"nn.relu", "relu", "max(x, 0)", [](const PrimExpr& x) { return tir::Max(x, tir::Const(x->dtype, 0)); }},
    {"exp", "exp", "e ** x", [](const PrimExpr& x) { return tir::Intrinsic("exp", {x}); }},
    {"log", "log", "natural logarithm", [](const PrimExpr& x) { return tir::Intrinsic("log", {x}); }},
    {"sqrt", "sqrt", "square root", [](const PrimExpr& x) { return tir::Intrinsic("sqrt", {x}); }},
    {"tanh", "tanh", "hyperbolic tangent", [](const PrimExpr& x) { return tir::Intrinsic("tanh", {x}); }},
    {"sigmoid", "sigmoid", "1 / (1 + exp(-x))", [](const PrimExpr& x) { return tir::Intrinsic("sigmoid", {x}); }},
    {"sin", "sin", "sine", [](const PrimExpr& x) { return tir::Intrinsic("sin", {x}); }},
    {"cos", "cos", "cosine", [](const PrimExpr& x) { return tir::Intrinsic("cos", {x}); }},
    {"tan", "tan", "tangent", [](const PrimExpr& x) { return tir::Intrinsic("tan", {x}); }},
    {"asin", "asin", "arcsine", [](const PrimExpr& x) { return tir::Intrinsic("asin", {x}); }},
    {"acos", "acos", "arccosine", [](const PrimExpr& x) { return tir::Intrinsic("acos", {x}); }},
    {"atan", "atan", "arctangent", [](const PrimExpr& x) { return tir::Intrinsic("atan", {x}); }},
    {"sinh", "sinh", "hyperbolic sine", [](const PrimExpr& x) { return tir::Intrinsic("sinh", {x}); }},
    {"cosh", "cosh", "hyperbolic cosine", [](const PrimExpr& x) { return tir::Intrinsic("cosh", {x}); }},
    {"asinh", "asinh", "inverse hyperbolic sine", [](const PrimExpr& x) { return tir::Intrinsic("asinh", {x}); }},
    {"acosh", "acosh", "inverse hyperbolic cosine", [](const PrimExpr& x) { return tir::Intrinsic("acosh", {x}); }},
    {"atanh", "atanh", "inverse hyperbolic tangent", [](const PrimExpr& x) { return tir::Intrinsic("atanh", {x}); }},
    {"erf", "erf", "Gauss error function", [](const PrimExpr& x) { return tir::Intrinsic("erf", {x}); }},
    {"negative", "negative", "-x", [](const PrimExpr& x) { return tir::operator-(x); }},
    {"abs", "abs", "|x|",
     [](const PrimExpr& x) {
       if (x->dtype.is_float()) return tir::Intrinsic("fabs", {x});
       return tir::Select(tir::operator<(x, tir::Const(x->dtype, 0)), tir::operator-(x), x);
     }},
    {"floor", "floor", "round down (floats)", [](const PrimExpr& x) { return tir::Intrinsic("floor", {x}); }},
    {"ceil", "ceil", "round up (floats)", [](const PrimExpr& x) { return tir::Intrinsic("ceil", {x}); }},
    {"round", "round", "round half to even (floats)", [](const PrimExpr& x) { return tir::Intrinsic("round", {x}); }},
    {"sign", "sign", "-1, 0 or 1 by the sign of x",
     [](const PrimExpr& x) {
       const PrimExpr zero = tir::Const(x->dtype, 0);
       return tir::Select(tir::operator>(x, zero), tir::Const(x->dtype, 1),
                          tir::Select(tir::operator<(x, zero), tir::Const(x->dtype, -1), zero));
     }},
    {"logical_not", "logical_not", "not x, of a bool tensor", [](const PrimExpr& x) { return tir::operator!(x); }},
};

bool RegisterElementwiseOps() {
  OpRegistry& registry = OpRegistry::Global();
  for (const BinaryOpDef& def : kBinaryOps) {
    auto compute = def.compute;
    registry.Register(def.name)
        .set_inputs({"x1", "x2"})
        .set_description(def.description)
        .set_infer(InferBroadcastBinary)
        .set_pattern(OpPattern::kBroadcast)
        .set_legalize(
            LegalizeTE(def.name, [compute](const std::vector<te::Tensor>& t) { return compute(t[0], t[1]); }));
  }
  for (const CompareOpDef& def : kCompareOps) {
    const std::string name = def.name;
    registry.Register(def.name)
        .set_inputs({"x1", "x2"})
        .set_description(def.description)
        .set_infer(InferCompare)
        .set_pattern(OpPattern::kBroadcast)
        .set_legalize(
            LegalizeTE(def.name, [name](const std::vector<te::Tensor>& t) { return topi::Compare(t[0], t[1], name); }));
  }
  for (const UnaryOpDef& def : kUnaryOps) {
    auto formula = def.formula;
    registry.Register(def.name)
        .set_inputs({"x"})
        .set_description(def.description)
        .set_infer(InferUnary)
        .set_pattern(OpPattern::kElemWise)
        .set_legalize(
            LegalizeTE(def.te_name, [formula](const std::vector<te::Tensor>& t) -> absl::StatusOr<te::Tensor> {
              return topi::Unary(t[0], formula);
            }));
  }
  return true;
}

[[maybe_unused]] const bool kRegistered = RegisterElementwiseOps();

}  // namespace
}  // namespace relax
}  // namespace mlc
