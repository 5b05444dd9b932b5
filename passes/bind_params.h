/*! \file bind_params.h
 *  \brief bind-params: replaces named parameters of a graph function by constants (model
 *         weights), as `relax.transform.BindParams("main", params)` in the seeds. The bound
 *         parameters leave the signature; their uses become constants.
 *
 *  Preconditions: each tensor matches its parameter's declared shape and dtype (else an error
 *  naming the parameter and both shapes). Names not among the parameters are an error that
 *  lists the parameters. Cost: one pass over the function.
 */
#ifndef MLC_PASSES_BIND_PARAMS_H_
#define MLC_PASSES_BIND_PARAMS_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "ir/graph/module.h"

namespace mlc {
namespace passes {

absl::StatusOr<IRModule> BindParams(const IRModule& mod, const std::string& func_name,
                                    const std::map<std::string, TensorData>& params);

}  // namespace passes
}  // namespace mlc

#endif  // MLC_PASSES_BIND_PARAMS_H_
