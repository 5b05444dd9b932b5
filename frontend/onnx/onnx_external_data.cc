/*! \file onnx_external_data.cc */
#include "frontend/onnx/onnx_external_data.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "ir/graph/shape_util.h"
#include "support/checked_math.h"

namespace mlc {
namespace onnx_import {

absl::StatusOr<TensorData> ReadExternalTensor(const onnx::TensorProto& t, const DeclaredTensor& declared,
                                              const std::string& base_dir) {
  namespace fs = std::filesystem;
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto& e : t.external_data()) {
    if (e.key() == "location") {
      location = e.value();
    } else if (e.key() == "offset" || e.key() == "length") {
      int64_t v = 0;
      if (!absl::SimpleAtoi(e.value(), &v) || v < 0) {
        return absl::DataLossError(absl::StrCat("external data ", e.key(), " '", e.value(), "' is not a byte count"));
      }
      (e.key() == "offset" ? offset : length) = v;
    }
  }
  if (location.empty()) return absl::DataLossError("external data without a location");
  const fs::path relative = fs::path(location).lexically_normal();
  if (relative.is_absolute() || relative.empty() || *relative.begin() == "..") {
    return absl::PermissionDeniedError(
        absl::StrCat("external data location '", location, "' is not inside the model's directory"));
  }
  const std::vector<int64_t>& shape = declared.shape;
  const int64_t bytes = declared.bytes;
  if (length >= 0 && length != bytes) {
    return absl::DataLossError(absl::StrCat("external data length ", length, " but the shape ",
                                            relax::ShapeToString(shape), " needs ", bytes, " bytes"));
  }
  const fs::path path = fs::path(base_dir) / relative;
  std::error_code ec;
  const uintmax_t size = fs::file_size(path, ec);
  if (ec) return absl::NotFoundError(absl::StrCat("external data ", path.string(), ": ", ec.message()));
  if (static_cast<uintmax_t>(SaturatingAdd(offset, bytes)) > size) {
    return absl::DataLossError(absl::StrCat("external data ", path.string(), " has ", size, " bytes; the tensor needs ",
                                            bytes, " at offset ", offset));
  }
  std::ifstream in(path, std::ios::binary);
  TensorData out(declared.dtype, shape);
  if (!in.seekg(offset) || !in.read(static_cast<char*>(out.mutable_data()), bytes)) {
    return absl::DataLossError(absl::StrCat("external data ", path.string(), ": read failed"));
  }
  return out;
}

}  // namespace onnx_import
}  // namespace mlc
