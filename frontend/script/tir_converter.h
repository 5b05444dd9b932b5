/*! \file tir_converter.h
 *  \brief @T.prim_func loop programs from the Python-subset syntax tree: buffers, loops,
 *         blocks, expressions and intrinsics, in the seeds' older spelling and the newer one.
 */
#ifndef MLC_FRONTEND_SCRIPT_TIR_CONVERTER_H_
#define MLC_FRONTEND_SCRIPT_TIR_CONVERTER_H_

#include "absl/status/statusor.h"
#include "frontend/script/script_util.h"
#include "ir/core/attrs.h"
#include "ir/tir/prim_func.h"
#include "support/python_syntax/ast.h"

namespace mlc {
namespace script {

/*! \brief The function `def` (decorated @T.prim_func; `is_private` from its decorator). */
absl::StatusOr<tir::PrimFunc> ConvertPrimFunc(const ErrorReporter& err, const AstPtr& def, bool is_private);
/*! \brief A dict of attributes ({"tir.noalias": T.bool(True), ...}), as T.func_attr takes it. */
absl::StatusOr<Attrs> ConvertAttrDict(const ErrorReporter& err, const AstPtr& node);
/*! \brief One attribute value (a literal, T.bool/T.int64/..., a list of them). */
absl::StatusOr<AttrValue> ConvertAttrLiteral(const ErrorReporter& err, const AstPtr& node);

}  // namespace script
}  // namespace mlc

#endif  // MLC_FRONTEND_SCRIPT_TIR_CONVERTER_H_
