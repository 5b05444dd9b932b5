/*! \file onnx_signal_converters.cc
 *  \brief ONNX signal-processing operators of opset 17 whose results are constants of their
 *         size: HannWindow, HammingWindow and BlackmanWindow, made at import in double precision.
 */
#include <cmath>

#include "frontend/onnx/converter_util.h"

namespace mlc {
namespace onnx_import {
namespace {

/*! \brief A window sum_k a_k cos(2 pi k n / N'), n = 0..size-1, N' = size when periodic (the
 *  default) and size - 1 when symmetric; output_datatype as Cast's `to` (float32 by default). */
OnnxConverter Window(std::vector<double> coefficients) {
  return [coefficients](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    absl::StatusOr<std::vector<int64_t>> size = ctx.ConstantInts(node, 0, "the window size");
    if (!size.ok()) return size.status();
    if (size->size() != 1 || (*size)[0] < 0) return absl::InvalidArgumentError("the window size must be one non-negative integer");
    absl::StatusOr<DataType> dtype = DtypeFromOnnx(static_cast<int32_t>(ctx.IntAttr(node, "output_datatype", onnx::TensorProto::FLOAT)));
    if (!dtype.ok()) return dtype.status();
    const int64_t n = (*size)[0];
    const double period = ctx.IntAttr(node, "periodic", 1) != 0 ? static_cast<double>(n) : static_cast<double>(n - 1);
    std::vector<double> values(n);
    for (int64_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < coefficients.size(); ++k) {
        values[i] += coefficients[k] * (period > 0 ? std::cos(2 * M_PI * static_cast<double>(k * i) / period) : 1.0);
      }
    }
    return std::vector<relax::Expr>{relax::MakeConstant(TensorFromDoubles(*dtype, {n}, values))};
  };
}

}  // namespace

void RegisterSignalOnnxConverters(OnnxConverterRegistry& r) {
  r.Register("HannWindow", Window({0.5, -0.5}));
  r.Register("HammingWindow", Window({25.0 / 46, -21.0 / 46}));
  r.Register("BlackmanWindow", Window({0.42, -0.5, 0.08}));
}

}  // namespace onnx_import
}  // namespace mlc
