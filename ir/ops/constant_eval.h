/*! \file constant_eval.h
 *  \brief The one constant evaluator: the value of a graph-level call whose arguments are all
 *         constants. An operator call is evaluated through its legalization (the same tensor
 *         expression code generation would compile), a call_tir through its PrimFunc, both by
 *         the loop-level interpreter (ir/tir/interpreter.h). fold-constant and the importers'
 *         import-time folding both use it.
 */
#ifndef MLC_IR_OPS_CONSTANT_EVAL_H_
#define MLC_IR_OPS_CONSTANT_EVAL_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "ir/graph/expr.h"
#include "ir/graph/module.h"
#include "support/tensor_data.h"

namespace mlc {
namespace relax {

/*! \brief The result of `call`, or an error saying why it cannot be evaluated: an argument is
 *         not a constant, the callee is impure or has no legalization, the result is not a
 *         tensor of static shape, or it is larger than both `max_elements` and every input (a
 *         broadcast that would grow the constants; a weight transposed or cast folds whatever
 *         its size), or the interpreter would run more than max_fold_steps stores and loop
 *         iterations plus four per element read and written (fuzzing found an ONNX file whose
 *         constant Gemm ran unbounded; moving a weight once, a 32000 x 1024 embedding
 *         transposed for a tied head, stays inside). Such a call is left to run at run time.
 *         `mod` resolves call_tir callees (may be null otherwise). */
absl::StatusOr<TensorData> EvaluateConstantCall(const CallNode& call, const IRModule* mod,
                                                int64_t max_elements = int64_t{1} << 20);

}  // namespace relax
}  // namespace mlc

#endif  // MLC_IR_OPS_CONSTANT_EVAL_H_
