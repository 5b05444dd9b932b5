/*! \file trace_parser.h
 *  \brief Schedule traces written in TVM's Python spelling (what Trace::AsPython prints, or a
 *         hand-written schedule) -> Trace:
 *
 *    sch = tir.Schedule(mod)
 *    block_Y = sch.get_block("Y", func_name="mm_relu")
 *    i, j, k = sch.get_loops(block_Y)
 *    j0, j1 = sch.split(j, factors=[None, 4])
 *    sch.reorder(j0, k, j1)
 *
 *  Arguments may be positional or keywords (the names of TVM's API); handles are any names
 *  the earlier lines defined. Errors name the file, line and column.
 */
#ifndef MLC_PASSES_SCHEDULE_TRACE_PARSER_H_
#define MLC_PASSES_SCHEDULE_TRACE_PARSER_H_

#include <string>

#include "absl/status/statusor.h"
#include "passes/schedule/trace.h"

namespace mlc {
namespace script {

absl::StatusOr<tir::Trace> ParseTrace(const std::string& text, const std::string& filename);

}  // namespace script
}  // namespace mlc

#endif  // MLC_PASSES_SCHEDULE_TRACE_PARSER_H_
