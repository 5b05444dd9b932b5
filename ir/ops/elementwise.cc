/*! \file elementwise.cc
 *  \brief Elementwise operators: broadcasting binary arithmetic and unary activations.
 */
#include "absl/strings/str_cat.h"
#include "ir/ops/op_util.h"

namespace mlc {
namespace relax {
namespace {

absl::StatusOr<StructInfo> InferBroadcastBinary(const CallNode& call) {
  absl::StatusOr<const TensorStructInfoNode*> lhs = TensorArg(call, 0);
  if (!lhs.ok()) return lhs.status();
  absl::StatusOr<const TensorStructInfoNode*> rhs = TensorArg(call, 1);
  if (!rhs.ok()) return rhs.status();
  DataType dtype = (*lhs)->dtype;
  if (!(*lhs)->dtype.is_void() && !(*rhs)->dtype.is_void() && (*lhs)->dtype != (*rhs)->dtype) {
    return absl::InvalidArgumentError(absl::StrCat("dtype mismatch: ", (*lhs)->dtype.ToString(), " vs ",
                                                   (*rhs)->dtype.ToString()));
  }
  if (dtype.is_void()) dtype = (*rhs)->dtype;
  if ((*lhs)->shape && (*rhs)->shape) {
    absl::StatusOr<std::vector<int64_t>> shape = BroadcastShapes(*(*lhs)->shape, *(*rhs)->shape);
    if (!shape.ok()) return shape.status();
    return TensorSInfo(*shape, dtype);
  }
  int ndim = ((*lhs)->ndim < 0 || (*rhs)->ndim < 0) ? -1 : std::max((*lhs)->ndim, (*rhs)->ndim);
  return TensorSInfoUnknownShape(dtype, ndim);
}

absl::StatusOr<StructInfo> InferUnary(const CallNode& call) {
  absl::StatusOr<const TensorStructInfoNode*> x = TensorArg(call, 0);
  if (!x.ok()) return x.status();
  return call.args[0]->struct_info();
}

void RegisterBinary(OpRegistry& registry, const std::string& name, const std::string& description) {
  OpInfo& op = registry.Register(name);
  op.num_inputs = 2;
  op.arg_names = {"x1", "x2"};
  op.description = description;
  op.infer = InferBroadcastBinary;
  op.pattern = OpPattern::kBroadcast;
}

void RegisterUnary(OpRegistry& registry, const std::string& name, const std::string& description) {
  OpInfo& op = registry.Register(name);
  op.num_inputs = 1;
  op.arg_names = {"x"};
  op.description = description;
  op.infer = InferUnary;
  op.pattern = OpPattern::kElemWise;
}

}  // namespace

void RegisterElementwiseOps(OpRegistry& registry) {
  RegisterBinary(registry, "add", "x1 + x2 with NumPy broadcasting");
  RegisterBinary(registry, "subtract", "x1 - x2 with NumPy broadcasting");
  RegisterBinary(registry, "multiply", "x1 * x2 with NumPy broadcasting");
  RegisterBinary(registry, "divide", "x1 / x2 with NumPy broadcasting");
  RegisterBinary(registry, "maximum", "elementwise max with NumPy broadcasting");
  RegisterBinary(registry, "minimum", "elementwise min with NumPy broadcasting");
  RegisterBinary(registry, "power", "x1 ** x2 with NumPy broadcasting");
  RegisterUnary(registry, "nn.relu", "max(x, 0)");
  RegisterUnary(registry, "exp", "e ** x");
  RegisterUnary(registry, "log", "natural logarithm");
  RegisterUnary(registry, "sqrt", "square root");
  RegisterUnary(registry, "tanh", "hyperbolic tangent");
  RegisterUnary(registry, "sigmoid", "1 / (1 + exp(-x))");
  RegisterUnary(registry, "erf", "Gauss error function");
  RegisterUnary(registry, "negative", "-x");
}

}  // namespace relax
}  // namespace mlc
