/*! \file lower_tir.h
 *  \brief Lowers a PrimFunc for code generation.
 *
 *  1. Blocks become plain statements: each block iteration variable is replaced by the value
 *     it is bound to; a reduction block's init runs under `if` every reduction iteration value
 *     is at its minimum (k == 0); a block predicate (T.where) becomes an `if`.
 *  2. Every alloc_buffer becomes an Allocate around the statements of the block owning it;
 *     an intermediate computed in an output in place (an elementwise epilogue's input) is not
 *     allocated at all, and one touched only under a loop is allocated inside it, at the size
 *     of the region one iteration touches.
 *  3. Buffers are flattened to one dimension, row-major: A[i, j] on (M, N) reads A[i * N + j].
 *     Flat indices are int64.
 *  4. Loops of extent 1 are removed (their variable becomes the loop's minimum) and index
 *     arithmetic is simplified (constants folded, x * 1, x + 0...).
 *  5. Consecutive parallel loops that only store one constant (a padded result's border slabs)
 *     become one parallel loop, each former loop's body under `if`: one launch of the pool.
 *  6. A select whose condition is the same for every iteration of a loop nest (a fused
 *     concatenation's choice of source per channel, inside the loops over its pixels) is
 *     decided once outside the nest (of 64 iterations or more), each branch a copy of the
 *     nest with one arm.
 *
 *  The result has only For, SeqStmt, IfThenElse, BufferStore, Evaluate and Allocate, which is
 *  what the LLVM code generator accepts. Preserves: semantics; loop kinds. Cost: linear.
 */
#ifndef MLC_CODEGEN_LOWER_TIR_H_
#define MLC_CODEGEN_LOWER_TIR_H_

#include "absl/status/statusor.h"
#include "ir/tir/prim_func.h"

namespace mlc {
namespace codegen {

absl::StatusOr<tir::PrimFunc> LowerPrimFunc(const tir::PrimFunc& func);

}  // namespace codegen
}  // namespace mlc

#endif  // MLC_CODEGEN_LOWER_TIR_H_
