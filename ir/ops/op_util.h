/*! \file op_util.h
 *  \brief What the operator definitions share: argument checks for inference and the
 *         legalization of an operator to one tensor expression of the operator library.
 */
#ifndef MLC_IR_OPS_OP_UTIL_H_
#define MLC_IR_OPS_OP_UTIL_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph/expr.h"
#include "ir/graph/op.h"
#include "ir/graph/shape_util.h"
#include "ir/ops/op_attrs.h"
#include "ir/te/call_te.h"

namespace mlc {
namespace relax {

/*! \brief The tensor struct info of argument `index`, or an error naming the argument. */
absl::StatusOr<const TensorStructInfoNode*> TensorArg(const CallNode& call, int index);

/*! \brief The dimensions of a tensor of known shape as constants, -1 where symbolic; an error
 *         naming `what` when a dimension in `need_static` (negative: from the end) is symbolic.
 *         Operators that compute from some dimensions (a convolution's channels and image)
 *         pass the others (the batch) through as they are. */
absl::StatusOr<std::vector<int64_t>> KnownDims(const TensorStructInfoNode* t, const std::vector<int>& need_static,
                                               const std::string& what);

/*! \brief Legalization to the tensor expression `rule(inputs)`, emitted as a PrimFunc named
 *         `name` (the names the seeds print: add, dense, relu...). */
using TeRule = std::function<absl::StatusOr<te::Tensor>(const std::vector<te::Tensor>&)>;
FLegalize LegalizeTE(std::string name, TeRule rule);

/*! \brief The same, for a rule that reads the operator's typed attributes. */
template <typename A, typename F>
FLegalize LegalizeTE(std::string name, F rule) {
  return [name, rule](BlockBuilder* bb, const CallNode& call) -> absl::StatusOr<Expr> {
    absl::StatusOr<A> attrs = ParseAttrs<A>(call.attrs);
    if (!attrs.ok()) return attrs.status();
    A a = *attrs;
    return te::CallTE(
        bb, name, [&](const std::vector<te::Tensor>& t) -> absl::StatusOr<te::Tensor> { return rule(t, a); },
        call.args);
  };
}

}  // namespace relax
}  // namespace mlc

#endif  // MLC_IR_OPS_OP_UTIL_H_
