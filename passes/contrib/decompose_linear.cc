/*! \file decompose_linear.cc
 *  \brief decompose-linear: an example of a pass that lives in its own Bazel target.
 *
 *  Rewrites `linear(x, w, b)` into `add(matmul(x, permute_dims(w)), b)`, the form the seeds'
 *  relax.op.linear produces, with the pattern language. It registers itself with
 *  MLC_REGISTER_PASS; nothing in the core names it. Link `:decompose_linear` into a binary
 *  (see `:opt` here) or load `:libdecompose_linear_pass.so` with `opt --pass-plugin=...`.
 */
#include "ir/graph/op.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace contrib {
namespace {

class DecomposeLinearPass : public passes::FunctionPass {
 public:
  std::string name() const override { return "decompose-linear"; }
  std::string description() const override {
    return "Example contrib pass: linear(x, w, b) -> add(matmul(x, permute_dims(w)), b).";
  }

 protected:
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* bb) override {
    passes::Pattern x = passes::Wildcard(), w = passes::Wildcard(), b = passes::Wildcard();
    return passes::Rewrite(
        passes::IsOp("linear")({x, w, b}), func,
        [&](const relax::Expr& matched, const passes::Match& m, relax::BlockBuilder*) -> relax::Expr {
          relax::Expr wt = relax::MakeCall(relax::GetOpOrDie("permute_dims"), {m[w]});
          relax::Expr mm = relax::MakeCall(relax::GetOpOrDie("matmul"), {m[x], wt});
          return relax::MakeCall(relax::GetOpOrDie("add"), {mm, m[b]});
        },
        bb);
  }
};

MLC_REGISTER_PASS(DecomposeLinearPass);

}  // namespace
}  // namespace contrib
}  // namespace mlc
