/*! \file elementwise.cc
 *  \brief Elementwise operators: broadcasting binary arithmetic and unary functions.
 *
 *  A unary operator is one row of kUnaryOps: its name, what it computes, and the scalar
 *  formula its legalization applies to every element; one that is a math intrinsic of the same
 *  name (exp, erf, ...) is only its name in kIntrinsicUnaryOps, the intrinsic's row saying the
 *  rest. Adding one is adding a row (and the importers' table entries that map framework names
 *  to it).
 */
#include <functional>

#include "absl/strings/str_cat.h"
#include "ir/ops/op_util.h"
#include "ir/tir/intrinsics.h"
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

/*! \brief Operators that are one math intrinsic of the same name (ir/tir/intrinsics.cc), which
 *  also gives their description. */
const char* const kIntrinsicUnaryOps[] = {"exp",   "log",   "sqrt", "tanh",  "sigmoid", "sin",  "cos",
                                          "tan",   "asin",  "acos", "atan",  "sinh",    "cosh", "asinh",
                                          "acosh", "atanh", "erf",  "floor", "ceil",    "round"};

struct UnaryOpDef {
  const char* name;     // the operator
  const char* te_name;  // the PrimFunc legalization makes
  const char* description;
  PrimExpr (*formula)(const PrimExpr& x);
};

const UnaryOpDef kUnaryOps[] = {
    {"nn.relu", "relu", "max(x, 0)", [](const PrimExpr& x) { return tir::Max(x, tir::Const(x->dtype, 0)); }},
    {"negative", "negative", "-x", [](const PrimExpr& x) { return tir::operator-(x); }},
    {"abs", "abs", "|x|",
     [](const PrimExpr& x) {
       if (x->dtype.is_float()) return tir::Intrinsic("fabs", {x});
       return tir::Select(tir::operator<(x, tir::Const(x->dtype, 0)), tir::operator-(x), x);
     }},
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
  auto register_unary = [&](const std::string& name, const std::string& te_name, const std::string& description,
                            std::function<PrimExpr(const PrimExpr&)> formula) {
    registry.Register(name)
        .set_inputs({"x"})
        .set_description(description)
        .set_infer(InferUnary)
        .set_pattern(OpPattern::kElemWise)
        .set_legalize(LegalizeTE(te_name, [formula](const std::vector<te::Tensor>& t) -> absl::StatusOr<te::Tensor> {
          return topi::Unary(t[0], formula);
        }));
  };
  for (const UnaryOpDef& def : kUnaryOps) register_unary(def.name, def.te_name, def.description, def.formula);
  for (const char* name : kIntrinsicUnaryOps) {
    const tir::IntrinsicInfo* info = tir::LookupIntrinsic(name);
    const std::string intrinsic = name;
    register_unary(name, name, info != nullptr ? info->description : name,
                   [intrinsic](const PrimExpr& x) { return tir::Intrinsic(intrinsic, {x}); });
  }
  return true;
}

[[maybe_unused]] const bool kRegistered = RegisterElementwiseOps();

}  // namespace
}  // namespace relax
}  // namespace mlc
