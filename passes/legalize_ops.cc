/*! \file legalize_ops.cc
 *  \brief The legalization rules of the core operators, one tensor expression each from the
 *         operator library (ir/topi). PrimFuncs are named after the operator (add, dense,
 *         relu...), as the seeds show.
 */
#include <mutex>

#include "absl/strings/str_cat.h"
#include "ir/op.h"
#include "ir/topi/topi.h"
#include "passes/legalize.h"

namespace mlc {
namespace passes {
namespace {

using te::Tensor;

FLegalize Unary(const std::string& name, Tensor (*f)(const Tensor&)) {
  return [name, f](relax::BlockBuilder* bb, const relax::CallNode& call) {
    return bb->CallTE(name, [f](const std::vector<Tensor>& t) -> absl::StatusOr<Tensor> { return f(t[0]); }, call.args);
  };
}

FLegalize Binary(const std::string& name, absl::StatusOr<Tensor> (*f)(const Tensor&, const Tensor&)) {
  return [name, f](relax::BlockBuilder* bb, const relax::CallNode& call) {
    return bb->CallTE(name, [f](const std::vector<Tensor>& t) { return f(t[0], t[1]); }, call.args);
  };
}

}  // namespace

void RegisterCoreLegalizations() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct BinaryRule {
      const char* op;
      const char* name;
      absl::StatusOr<Tensor> (*f)(const Tensor&, const Tensor&);
    };
    for (const BinaryRule& r : {BinaryRule{"add", "add", topi::Add}, BinaryRule{"subtract", "subtract", topi::Subtract},
                                BinaryRule{"multiply", "multiply", topi::Multiply}, BinaryRule{"divide", "divide", topi::Divide},
                                BinaryRule{"maximum", "maximum", topi::Maximum}, BinaryRule{"minimum", "minimum", topi::Minimum},
                                BinaryRule{"power", "power", topi::Power}, BinaryRule{"nn.dense", "dense", topi::Dense},
                                BinaryRule{"matmul", "matmul", topi::Matmul}}) {
      (void)RegisterLegalization(r.op, Binary(r.name, r.f));
    }
    struct UnaryRule {
      const char* op;
      const char* name;
      Tensor (*f)(const Tensor&);
    };
    for (const UnaryRule& r : {UnaryRule{"nn.relu", "relu", topi::Relu}, UnaryRule{"exp", "exp", topi::Exp},
                               UnaryRule{"log", "log", topi::Log}, UnaryRule{"sqrt", "sqrt", topi::Sqrt},
                               UnaryRule{"tanh", "tanh", topi::Tanh}, UnaryRule{"sigmoid", "sigmoid", topi::Sigmoid},
                               UnaryRule{"erf", "erf", topi::Erf}, UnaryRule{"negative", "negative", topi::Negative}}) {
      (void)RegisterLegalization(r.op, Unary(r.name, r.f));
    }
    (void)RegisterLegalization("permute_dims", [](relax::BlockBuilder* bb, const relax::CallNode& call) {
      std::vector<int64_t> axes;
      auto it = call.attrs.find("axes");
      if (it != call.attrs.end() && it->second.is<std::vector<int64_t>>()) axes = it->second.get<std::vector<int64_t>>();
      return bb->CallTE(
          "transpose", [axes](const std::vector<Tensor>& t) { return topi::Transpose(t[0], axes); }, call.args);
    });
    (void)RegisterLegalization("reshape", [](relax::BlockBuilder* bb, const relax::CallNode& call) -> absl::StatusOr<relax::Expr> {
      const auto* out = call.struct_info().as<relax::TensorStructInfoNode>();
      if (out == nullptr || !out->shape) return absl::InvalidArgumentError("reshape needs a static result shape");
      std::vector<int64_t> shape = *out->shape;
      return bb->CallTE(
          "reshape", [shape](const std::vector<Tensor>& t) { return topi::Reshape(t[0], shape); }, call.args);
    });
    (void)RegisterLegalization("linear", [](relax::BlockBuilder* bb, const relax::CallNode& call) {
      return bb->CallTE(
          "linear",
          [](const std::vector<Tensor>& t) -> absl::StatusOr<Tensor> {
            absl::StatusOr<Tensor> y = topi::Dense(t[0], t[1]);
            if (!y.ok()) return y;
            return topi::Add(*y, t[2]);
          },
          call.args);
    });
    (void)RegisterLegalization("ewise_fma", [](relax::BlockBuilder* bb, const relax::CallNode& call) {
      return bb->CallTE(
          "ewise_fma", [](const std::vector<Tensor>& t) { return topi::EwiseFma(t[0], t[1], t[2]); }, call.args);
    });
  });
}

}  // namespace passes
}  // namespace mlc
