/*! \file branch_blocks.h
 *  \brief Moves each if out of the dataflow block it was built in.
 *
 *  An importer converts a graph node by node into one dataflow block; an if (ONNX If) lands in
 *  the middle of it, where the IR does not allow one (dataflow blocks are pure and straight).
 *  The block is split around each if: the bindings before and after stay dataflow blocks, the
 *  if gets a plain block of its own, and every dataflow variable used past its new block
 *  becomes an ordinary variable.
 */
#ifndef MLC_IR_GRAPH_BRANCH_BLOCKS_H_
#define MLC_IR_GRAPH_BRANCH_BLOCKS_H_

#include "absl/status/statusor.h"
#include "ir/graph/function.h"
#include "ir/graph/module.h"

namespace mlc {
namespace relax {

/*! \brief `func` (of `mod`, which holds the branches' callees) with its ifs outside dataflow
 *         blocks; the same function when it has none there. */
absl::StatusOr<Function> MoveBranchesOutOfDataflow(const Function& func, const IRModule& mod);

}  // namespace relax
}  // namespace mlc

#endif  // MLC_IR_GRAPH_BRANCH_BLOCKS_H_
