/*! \file tir_util.h
 *  \brief Loop-level construction helpers shared by the parser, TE and passes: block
 *         read/write region inference, loop nests, and block realization.
 */
#ifndef MLC_IR_TIR_TIR_UTIL_H_
#define MLC_IR_TIR_TIR_UTIL_H_

#include <string>
#include <utility>
#include <vector>

#include "ir/tir/stmt.h"

namespace mlc {
namespace tir {

/*! \brief The regions a block reads and writes, as TVM infers them when T.reads / T.writes
 *  are omitted: accesses in order of first appearance; one index per dimension when every
 *  access agrees, else the covering range; buffers allocated by the block itself excluded;
 *  and in a reduction block (one with init) the output's own reads are not reads. */
std::pair<std::vector<BufferRegion>, std::vector<BufferRegion>> InferAccessRegions(
    const Stmt& body, const Stmt& init, const std::vector<Buffer>& alloc_buffers);

/*! \brief Nested serial loops `for vars[0] in range(extents[0]): ...` around `body`. */
Stmt MakeLoopNest(const std::vector<Var>& vars, const std::vector<PrimExpr>& extents, Stmt body);

/*! \brief A realized block: iteration variables bound to `values`, regions inferred. */
Stmt MakeBlockRealize(const std::string& name, std::vector<IterVar> iter_vars, std::vector<PrimExpr> values, Stmt body,
                      Stmt init = Stmt(), std::vector<Buffer> alloc_buffers = {});

/*! \brief Replaces variables in an expression (used when binding block iteration variables). */
PrimExpr Substitute(const PrimExpr& expr, const std::vector<std::pair<Var, PrimExpr>>& map);
Stmt Substitute(const Stmt& stmt, const std::vector<std::pair<Var, PrimExpr>>& map);

}  // namespace tir
}  // namespace mlc

#endif  // MLC_IR_TIR_TIR_UTIL_H_
