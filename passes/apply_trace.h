/*! \file apply_trace.h
 *  \brief Applying a schedule trace file to a module: what the schedule stage
 *         (//tools:schedule) and the apply-trace pass both do.
 */
#ifndef MLC_PASSES_APPLY_TRACE_H_
#define MLC_PASSES_APPLY_TRACE_H_

#include <string>

#include "absl/status/statusor.h"
#include "ir/graph/module.h"
#include "passes/schedule/trace.h"

namespace mlc {
namespace passes {

/*! \brief Reads a trace: TVM's Python spelling (*.py), or the Protobuf form (anything else). */
absl::StatusOr<tir::Trace> ReadTraceFile(const std::string& path);

/*! \brief The module after the trace; errors name the instruction and the primitive's reason.
 *         `applied` (optional) receives the trace as applied (with the decisions taken). */
absl::StatusOr<IRModule> ApplyTraceToModule(const IRModule& mod, const tir::Trace& trace,
                                            tir::Trace* applied = nullptr);

}  // namespace passes
}  // namespace mlc

#endif  // MLC_PASSES_APPLY_TRACE_H_
