/*! \file tensor_intrin.h
 *  \brief Tensor intrinsics for tensorize: each recognizes a computation (a block over a
 *         small loop nest, after blockize) and gives the statement that computes it in one
 *         step, typically a call that code generation expands into hand-ordered vector code.
 *
 *  Registered: "gemm_f32", a float32 register-tile GEMM C[i, j] += A[i, k] * B[k, j] over
 *  an MR x NR x K tile with any strides (the extents come from the loops): it becomes
 *  `T.gemm_tile(C, A, B, K, MR, NR, strides...)`, which the LLVM backend emits as MR x NR/VL
 *  accumulator registers, one broadcast of A and NR/VL vector loads of B per k, and FMAs.
 */
#ifndef MLC_PASSES_SCHEDULE_TENSOR_INTRIN_H_
#define MLC_PASSES_SCHEDULE_TENSOR_INTRIN_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/stmt.h"

namespace mlc {
namespace tir {

/*! \brief What tensorize hands an intrinsic: the block to replace (its iteration variables
 *         are in scope of the result), the loops inside it, and the one block they hold, with
 *         an analyzer that knows the loops' ranges. */
struct TensorizeInput {
  const BlockNode* outer;
  std::vector<const ForNode*> loops;
  const BlockRealizeNode* inner;
  Analyzer analyzer;
};

/*! \brief The statement computing the outer block's body, or why the intrinsic does not apply. */
using TensorIntrinFn = std::function<absl::StatusOr<Stmt>(const TensorizeInput& input)>;

struct TensorIntrin {
  std::string name;
  std::string description;
  TensorIntrinFn apply;
};

void RegisterTensorIntrin(TensorIntrin intrin);
const TensorIntrin* FindTensorIntrin(const std::string& name);
std::vector<std::string> TensorIntrinNames();

}  // namespace tir
}  // namespace mlc

#endif  // MLC_PASSES_SCHEDULE_TENSOR_INTRIN_H_
