/*! \file ewise_fma.cc
 *  \brief ewise-fma: `add(multiply(a, b), c)` -> `ewise_fma(a, b, c)`, the seeds'
 *         EwiseFMARewriter, written with the pattern language. The multiply binding stays (it
 *         may have other users); remove-unused drops it when it has none.
 */
#include "ir/graph/op.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

class EwiseFmaPass : public FunctionPass {
 public:
  std::string name() const override { return "ewise-fma"; }
  std::string description() const override {
    return "Rewrites add(multiply(a, b), c) into ewise_fma(a, b, c) (the seeds' EwiseFMARewriter). Shapes of a, b, c "
           "must agree (ewise_fma does not broadcast); other code is left alone.";
  }

 protected:
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* bb) override {
    Pattern a = Wildcard(), b = Wildcard(), c = Wildcard();
    Pattern mul = IsOp("multiply")({a, b});
    Pattern add = IsOp("add")({mul, c});
    return Rewrite(
        add, func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          relax::Expr x = m[a], y = m[b], z = m[c];
          // ewise_fma needs one shape; decline when add/multiply broadcast.
          if (!relax::IsBaseOf(x->struct_info(), y->struct_info()) ||
              !relax::IsBaseOf(x->struct_info(), z->struct_info()) ||
              !relax::IsBaseOf(x->struct_info(), matched->struct_info())) {
            return matched;
          }
          return relax::MakeCall(relax::GetOpOrDie("ewise_fma"), {x, y, z});
        },
        bb);
  }
};

MLC_REGISTER_PASS(EwiseFmaPass);

}  // namespace

}  // namespace passes
}  // namespace mlc
