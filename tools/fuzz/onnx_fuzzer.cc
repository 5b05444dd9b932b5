// Fuzz target: the ONNX importer (model bytes in, IRModule or an error out).
#include <cstdint>
#include <string>

#include "frontend/onnx/onnx_importer.h"
#include "ir/graph/verifier.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(size))) return 0;
  absl::StatusOr<mlc::IRModule> mod = mlc::onnx_import::ImportOnnx(model);
  if (mod.ok()) (void)mlc::VerifyModule(*mod);
  return 0;
}
