/*! \file legalize.h
 *  \brief legalize: high-level operator calls -> call_tir of PrimFuncs built from the operator
 *         library's tensor expressions (the seeds' LowerToTensorIR).
 *
 *  Rules live in the operator registry under the attribute "FLegalize". Core rules are
 *  registered by RegisterCoreLegalizations(); a user adds one for their own operator (or
 *  replaces a core one) with RegisterLegalization:
 *
 *    RegisterLegalization("my.gelu", [](relax::BlockBuilder* bb, const relax::CallNode& call) {
 *      return te::CallTE(bb, "gelu", MyGeluTE, call.args);
 *    });
 */
#ifndef MLC_PASSES_LEGALIZE_H_
#define MLC_PASSES_LEGALIZE_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "ir/te/call_te.h"
#include "ir/block_builder.h"

namespace mlc {
namespace passes {

using FLegalize = std::function<absl::StatusOr<relax::Expr>(relax::BlockBuilder* bb, const relax::CallNode& call)>;

/*! \brief Sets the legalization rule of `op` (fails if the operator is unknown). */
absl::Status RegisterLegalization(const std::string& op, FLegalize rule);
/*! \brief Registers the rules of the core operators (idempotent). */
void RegisterCoreLegalizations();

}  // namespace passes
}  // namespace mlc

#endif  // MLC_PASSES_LEGALIZE_H_
