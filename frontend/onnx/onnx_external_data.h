/*! \file onnx_external_data.h
 *  \brief Tensors whose bytes live beside the model (TensorProto.data_location = EXTERNAL):
 *         how ONNX stores weights past the 2 GiB a single Protobuf message can hold
 *         (`onnx.save_model(m, path, save_as_external_data=True)`, torch.onnx.export of large
 *         models).
 */
#ifndef MLC_FRONTEND_ONNX_ONNX_EXTERNAL_DATA_H_
#define MLC_FRONTEND_ONNX_ONNX_EXTERNAL_DATA_H_

#include <string>

#include "absl/status/statusor.h"
#include "frontend/onnx/onnx_importer.h"
#include "onnx.pb.h"
#include "support/tensor_data.h"

namespace mlc {
namespace onnx_import {

inline bool IsExternal(const onnx::TensorProto& t) {
  return t.has_data_location() && t.data_location() == onnx::TensorProto::EXTERNAL;
}

/*! \brief Reads `t`'s bytes from its `location` (relative to `base_dir`, the model's directory)
 *         at `offset`. A location that is absolute or leaves `base_dir` ("..") is refused: a
 *         model must not make the compiler read arbitrary files. The file must hold the bytes
 *         the shape needs (and `length`, when given, must be exactly that) before anything is
 *         allocated. */
absl::StatusOr<TensorData> ReadExternalTensor(const onnx::TensorProto& t, const DeclaredTensor& declared,
                                              const std::string& base_dir);

}  // namespace onnx_import
}  // namespace mlc

#endif  // MLC_FRONTEND_ONNX_ONNX_EXTERNAL_DATA_H_
