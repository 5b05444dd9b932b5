/*! \file constant_folding.h
 *  \brief Import-time evaluation of ONNX shape computations.
 *
 *  Exporters compute attributes such as Pad's widths or Reshape's target with small subgraphs
 *  (Shape, Gather, Unsqueeze, Concat, ConstantOfShape, Slice, ...). Converters need those
 *  values as constants, so the importer evaluates a node here when its inputs are constants
 *  (Shape and Size only need a static input shape) before it looks for a converter.
 */
#ifndef MLC_FRONTEND_ONNX_CONSTANT_FOLDING_H_
#define MLC_FRONTEND_ONNX_CONSTANT_FOLDING_H_

#include <optional>

#include "frontend/onnx/onnx_importer.h"

namespace mlc {
namespace onnx_import {

/*! \brief The node's single result if it can be computed now; nullopt to convert it normally. */
absl::StatusOr<std::optional<TensorData>> EvaluateAtImport(const OnnxContext& ctx, const onnx::NodeProto& node);

}  // namespace onnx_import
}  // namespace mlc

#endif  // MLC_FRONTEND_ONNX_CONSTANT_FOLDING_H_
