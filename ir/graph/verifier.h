/*! \file verifier.h
 *  \brief The well-formedness verifier, run after parsing, importing and every pass.
 *
 *  Graph level: every variable is defined once before use; DataflowVars are bound only in
 *  dataflow blocks and used only inside their own block; dataflow blocks hold only pure
 *  calls; each binding's struct info agrees with its value (re-inferred for calls); calls
 *  name existing functions with the right arity; call_tir targets a PrimFunc whose buffers
 *  match the argument and output tensors; the body agrees with the declared result.
 *
 *  Loop level: buffers are parameters or alloc_buffers in scope; indices match the buffer
 *  rank; variables are bound by an enclosing loop or block; blocks bind every iteration
 *  variable; intrinsic calls name known intrinsics with the right arity.
 *
 *  Resources: what the module declares stays within the process's limits
 *  (ir/graph/resource_check.h: tensor and buffer sizes, loop iterations per kernel, constant bytes).
 *
 *  The first violation is reported with the function and the binding (or block) it is in.
 */
#ifndef MLC_IR_GRAPH_VERIFIER_H_
#define MLC_IR_GRAPH_VERIFIER_H_

#include "absl/status/status.h"
#include "ir/graph/module.h"

namespace mlc {

absl::Status VerifyModule(const IRModule& mod);

}  // namespace mlc

#endif  // MLC_IR_GRAPH_VERIFIER_H_
