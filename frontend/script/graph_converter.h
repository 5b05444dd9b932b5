/*! \file graph_converter.h
 *  \brief @R.function graph-level functions from the Python-subset syntax tree: dataflow
 *         blocks, bindings, calls of operators, of PrimFuncs (call_tir) and of other functions,
 *         structure info, in the seeds' older spelling and the newer one.
 */
#ifndef MLC_FRONTEND_SCRIPT_GRAPH_CONVERTER_H_
#define MLC_FRONTEND_SCRIPT_GRAPH_CONVERTER_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "frontend/script/script_util.h"
#include "ir/graph/function.h"
#include "ir/graph/module.h"
#include "support/python_syntax/ast.h"
#include "support/tensor_data.h"

namespace mlc {
namespace script {

/*! \brief What converting one graph function sees of its module. */
struct GraphFunctionContext {
  const ErrorReporter& err;
  const IRModule& mod;                           // the functions converted so far: callees before their callers
  const std::set<std::string>& function_names;   // every function of the class
  const std::set<std::string>& prim_func_names;  // of those, the PrimFuncs
  const std::string& class_name;
  const std::optional<std::vector<TensorData>>& constants;  // metadata["relax.expr.Constant"]
  std::map<int64_t, relax::Expr>* constant_cache;           // one Constant per metadata index
};

/*! \brief The signature alone (parameters and declared result) with an empty body, for the calls
 *  of a function converted before its body is (it calls itself, directly or not). */
absl::StatusOr<relax::Function> DeclareGraphFunction(const GraphFunctionContext& ctx, const AstPtr& def);
/*! \brief The function `def` (decorated @R.function; `is_private` from its decorator). */
absl::StatusOr<relax::Function> ConvertGraphFunction(const GraphFunctionContext& ctx, const AstPtr& def,
                                                     bool is_private);
/*! \brief Names a function body refers to (for ordering callees before callers). */
void CollectNames(const AstPtr& node, std::set<std::string>* out);

}  // namespace script
}  // namespace mlc

#endif  // MLC_FRONTEND_SCRIPT_GRAPH_CONVERTER_H_
