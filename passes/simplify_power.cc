/*! \file simplify_power.cc
 *  \brief simplify-power: power(x, c) with a scalar constant exponent becomes cheaper
 *         arithmetic: c = 2 -> x * x, c = 1 -> x, c = 0.5 -> sqrt(x). Exporters write layer
 *         norm's variance as Pow(x - mean, 2); as a general pow it costs a libm call per element.
 */
#include <cmath>

#include "ir/graph/op.h"
#include "ir/graph/shape_util.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

/*! \brief The value of a float32 constant holding one element, if it is one. */
std::optional<double> ScalarValue(const relax::Expr& e) {
  const auto* c = e.as<relax::ConstantNode>();
  if (c == nullptr || c->data.dtype() != DataType::Float32() || c->data.NumElements() != 1) return std::nullopt;
  return c->data.data_as<float>()[0];
}

class SimplifyPowerPass : public FunctionPass {
 public:
  std::string name() const override { return "simplify-power"; }
  std::string description() const override {
    return "Rewrites power(x, c) with a scalar float32 constant c of 2, 1 or 0.5 as x * x, x or sqrt(x) (when the "
           "result keeps x's shape), so no general pow runs per element.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* builder) override {
    Pattern x = Wildcard(), c = IsConst();
    return Rewrite(
        IsOp("power")({x, c}), func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          std::optional<double> v = ScalarValue(m[c]);
          // Broadcasting against the constant must not change the shape.
          if (!v || !StructuralEqualSInfo(m[x], matched)) return matched;
          if (*v == 2.0) return relax::MakeCall(relax::GetOpOrDie("multiply"), {m[x], m[x]});
          if (*v == 1.0) return m[x];
          if (*v == 0.5) return relax::MakeCall(relax::GetOpOrDie("sqrt"), {m[x]});
          return matched;
        },
        builder);
  }

 private:
  static bool StructuralEqualSInfo(const relax::Expr& a, const relax::Expr& b) {
    const auto* ta = a->struct_info().as<relax::TensorStructInfoNode>();
    const auto* tb = b->struct_info().as<relax::TensorStructInfoNode>();
    if (ta == nullptr || tb == nullptr || ta->dtype != tb->dtype || !ta->HasKnownShape() || ta->ndim != tb->ndim)
      return false;
    if (ta->shape && tb->shape) return *ta->shape == *tb->shape;
    std::vector<tir::PrimExpr> da = ta->Dims(), db = tb->Dims();
    for (size_t i = 0; i < da.size(); ++i) {
      if (!relax::DimsEqual(da[i], db[i])) return false;
    }
    return true;
  }
};

MLC_REGISTER_PASS(SimplifyPowerPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
