/*! \file legalize.h
 *  \brief legalize: high-level operator calls -> call_tir of PrimFuncs built from the operator
 *         library's tensor expressions (the seeds' LowerToTensorIR).
 *
 *  Each operator's rule is part of its registration (OpInfo::legalize, set in //ir/ops). A user
 *  replaces the rule of an existing operator with RegisterLegalization:
 *
 *    RegisterLegalization("nn.relu", [](relax::BlockBuilder* bb, const relax::CallNode& call) {
 *      return te::CallTE(bb, "my_relu", MyReluTE, call.args);
 *    });
 */
#ifndef MLC_PASSES_LEGALIZE_H_
#define MLC_PASSES_LEGALIZE_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "ir/graph/op.h"

namespace mlc {
namespace passes {

/*! \brief Replaces the legalization rule of `op` (fails if the operator is unknown). */
absl::Status RegisterLegalization(const std::string& op, relax::FLegalize rule);

}  // namespace passes
}  // namespace mlc

#endif  // MLC_PASSES_LEGALIZE_H_
