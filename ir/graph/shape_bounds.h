/*! \file shape_bounds.h
 *  \brief Upper bounds of a graph function's shape variables (`--upper_bound n=64`), recorded
 *         as function attributes "tir_var_upper_bound.<name>" = bound. They let the memory
 *         planner give symbolic intermediates fixed storage (codegen/memory_plan.h); a call
 *         whose shapes exceed them still runs, its large tensors allocated as they come.
 */
#ifndef MLC_IR_GRAPH_SHAPE_BOUNDS_H_
#define MLC_IR_GRAPH_SHAPE_BOUNDS_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "ir/graph/function.h"
#include "ir/graph/module.h"

namespace mlc {

/*! \brief "tir_var_upper_bound.n" for variable n. */
std::string UpperBoundAttrKey(const std::string& var_name);

/*! \brief The bounds recorded on `func`, by variable name. */
std::map<std::string, int64_t> ShapeVarUpperBounds(const relax::FunctionNode& func);

/*! \brief `spec` ("n=64,seq=128") parsed: positive bounds, each variable once. */
absl::StatusOr<std::map<std::string, int64_t>> ParseUpperBounds(const std::string& spec);

/*! \brief Records each bound on every graph function with a shape variable of that name; a
 *         name no function has is an error that lists the variables there are. */
absl::StatusOr<IRModule> SetShapeUpperBounds(const IRModule& mod, const std::map<std::string, int64_t>& bounds);

}  // namespace mlc

#endif  // MLC_IR_GRAPH_SHAPE_BOUNDS_H_
