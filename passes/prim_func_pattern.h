/*! \file prim_func_pattern.h
 *  \brief The fusion pattern kind of a loop program, read off its blocks (TVM's
 *         AnnotateTIROpPattern), so fuse-ops groups `call_tir`s of PrimFuncs (legalized
 *         operators, or functions a user wrote) as it groups operator calls.
 *
 *   - every block spatial, its store indexed by its iteration variables: elementwise when every
 *     load reads at those indices, broadcast when loads read at some of them (in order) or at
 *     constants, injective otherwise (a transpose, a reshape, a pad);
 *   - one reduction block (and spatial blocks): out-elementwise-fusable when the reduction is a
 *     sum of products of two loads (a matmul, a convolution), a reduction otherwise;
 *   - anything else (several reductions, an unscheduled form we cannot read, a function already
 *     scheduled): opaque, never fused.
 */
#ifndef MLC_PASSES_PRIM_FUNC_PATTERN_H_
#define MLC_PASSES_PRIM_FUNC_PATTERN_H_

#include "ir/graph/op.h"
#include "ir/tir/prim_func.h"

namespace mlc {
namespace passes {

relax::OpPattern PrimFuncPattern(const tir::PrimFunc& func);

}  // namespace passes
}  // namespace mlc

#endif  // MLC_PASSES_PRIM_FUNC_PATTERN_H_
