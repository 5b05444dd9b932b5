/*! \file model_file.cc */
#include "frontend/model_file.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "frontend/torch/fx_importer.h"
#include "ir/graph/serialize.h"

namespace mlc {

std::string ModelFileFormats(bool with_irpb) {
  return absl::StrCat("*.onnx (ONNX), *.fxpb (PyTorch FX)", with_irpb ? ", *.irpb (an imported module)" : "");
}

absl::StatusOr<IRModule> ImportModelFile(const std::string& path, const onnx_import::OnnxImportOptions& onnx_options,
                                         bool with_irpb) {
  if (absl::EndsWith(path, ".onnx")) return onnx_import::ImportOnnxFile(path, onnx_options);
  if (absl::EndsWith(path, ".fxpb")) return fx::ImportFxFile(path);
  if (with_irpb && absl::EndsWith(path, ".irpb")) return LoadModule(path);
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": unknown format (expected ", ModelFileFormats(with_irpb), ")"));
}

}  // namespace mlc
