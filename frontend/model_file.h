/*! \file model_file.h
 *  \brief A model file of any format the frontends read, to an IRModule: which importer a file
 *         goes to is decided here, once, for the stages that take models (import, tune).
 */
#ifndef MLC_FRONTEND_MODEL_FILE_H_
#define MLC_FRONTEND_MODEL_FILE_H_

#include <string>

#include "absl/status/statusor.h"
#include "frontend/onnx/onnx_importer.h"
#include "ir/graph/module.h"

namespace mlc {

/*! \brief The formats, for messages: "*.onnx (ONNX), *.fxpb (PyTorch FX)". */
std::string ModelFileFormats(bool with_irpb);

/*! \brief Imports `path` by its extension: *.onnx (with `onnx_options`), *.fxpb, and with
 *  `with_irpb` an imported module (*.irpb) as it is. Another extension is an error naming the
 *  formats. */
absl::StatusOr<IRModule> ImportModelFile(const std::string& path,
                                         const onnx_import::OnnxImportOptions& onnx_options = {},
                                         bool with_irpb = false);

}  // namespace mlc

#endif  // MLC_FRONTEND_MODEL_FILE_H_
