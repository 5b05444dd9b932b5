/*! \file onnx_resize_converter.cc
 *  \brief ONNX Resize (opsets 11-17) and Upsample (opsets 7-9): their attributes and constant
 *         inputs read, the resampling done by frontend/common/resample.h.
 */
#include <cmath>

#include "frontend/common/resample.h"
#include "frontend/onnx/converter_util.h"

namespace mlc {
namespace onnx_import {
namespace {

/*! \brief Float values of input i (roi, scales, sizes): empty when omitted, an error unless constant. */
absl::StatusOr<std::vector<double>> ConstantValues(OnnxContext& ctx, const onnx::NodeProto& node, int i,
                                                   const char* what) {
  if (!ctx.HasInput(node, i)) return std::vector<double>{};
  const TensorData* t = ctx.ConstantInput(node, i);
  std::optional<std::vector<double>> v = t ? ValuesAsDouble(*t) : std::nullopt;
  if (!v) return absl::UnimplementedError(absl::StrCat(node.op_type(), "'s ", what, " must be a constant"));
  return *v;
}

using frontend::ResizeParams;

/*! \brief The resized x as the converter's one output. */
Outputs Resample(OnnxContext& ctx, const relax::Expr& x, const ResizeParams& p, const std::vector<double>& roi,
                 const std::vector<double>& scales, const std::vector<double>& sizes) {
  return One(frontend::Resample(frontend::EmitterOf(ctx), x, p, roi, scales, sizes));
}

Outputs Resize(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  ResizeParams p;
  p.mode = ctx.StringAttr(node, "mode", "nearest");
  p.coordinate_mode = ctx.StringAttr(node, "coordinate_transformation_mode", "half_pixel");
  p.nearest_mode = ctx.StringAttr(node, "nearest_mode", "round_prefer_floor");
  p.cubic_a = ctx.FloatAttr(node, "cubic_coeff_a", -0.75f);
  p.extrapolation = ctx.FloatAttr(node, "extrapolation_value", 0.0f);
  p.exclude_outside = ctx.IntAttr(node, "exclude_outside", 0) != 0;
  // Sizes or scales computed when the model runs (a detector's masks pasted at each box's size):
  // mlc.resize computes the taps then and allocates the result, whose every size is a new
  // shape variable.
  for (int i : {2, 3}) {
    if (!ctx.HasInput(node, i) || ctx.ConstantInput(node, i) != nullptr) continue;
    absl::StatusOr<relax::Expr> target = ctx.Input(node, i);
    if (!target.ok()) return target.status();
    const relax::TensorStructInfoNode* xt = TensorOf(*x);
    if (xt == nullptr || xt->ndim < 0 || xt->dtype != DataType::Float32())
      return absl::UnimplementedError("resizing to sizes computed at run time takes a float32 input of known rank");
    if (p.coordinate_mode == "tf_crop_and_resize")
      return absl::UnimplementedError("tf_crop_and_resize to sizes computed at run time is not supported");
    if (absl::Status s = CheckResizeParams(p); !s.ok()) return s;
    if (i == 2) target = ctx.EmitOp("astype", {*target}, {{"dtype", DataType::Float32()}});
    if (!target.ok()) return target.status();
    const std::vector<double> code = EncodeResizeParams(p);
    TensorData params = TensorFromDoubles(DataType::Float(64), {static_cast<int64_t>(code.size())}, code);
    return CallAllocating(ctx, "mlc.resize", {*x, *target, relax::MakeConstant(params)},
                          {{xt->dtype, OutputDimVars(node, xt->ndim)}});
  }
  // roi (1), scales (2), sizes (3): constants, as exporters write them.
  absl::StatusOr<std::vector<double>> roi = ConstantValues(ctx, node, 1, "roi"),
                                      scales = ConstantValues(ctx, node, 2, "scales"),
                                      sizes = ConstantValues(ctx, node, 3, "sizes");
  if (!roi.ok()) return roi.status();
  if (!scales.ok()) return scales.status();
  if (!sizes.ok()) return sizes.status();
  return Resample(ctx, *x, p, *roi, *scales, *sizes);
}

/*! \brief Upsample (opsets 7-9, before Resize replaced it): nearest (rounding down) or linear on
 *  asymmetric coordinates, scales from the (constant) input. */
Outputs Upsample(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  ResizeParams p;
  p.mode = ctx.StringAttr(node, "mode", "nearest");
  p.coordinate_mode = "asymmetric";
  p.nearest_mode = "floor";
  absl::StatusOr<std::vector<double>> scales = ConstantValues(ctx, node, 1, "scales");
  if (!scales.ok()) return scales.status();
  if (scales->empty()) return absl::InvalidArgumentError("Upsample needs its scales input (opset 9)");
  return Resample(ctx, *x, p, {}, *scales, {});
}

}  // namespace

void RegisterResizeOnnxConverter(OnnxConverterRegistry& r) {
  r.Register("Resize", Resize);
  r.Register("Upsample", Upsample);
}

}  // namespace onnx_import
}  // namespace mlc
