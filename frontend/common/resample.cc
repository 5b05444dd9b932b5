/*! \file resample.cc
 *  \brief Resizing by interpolation as per-axis gathers and weighted sums (resample.h).
 */
#include "frontend/common/resample.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "ir/graph/struct_info.h"
#include "ir/tir/shape_expr.h"

namespace mlc {
namespace frontend {
namespace {

/*! \brief A vector as a constant shaped (n, 1, ..., 1) that broadcasts along `axis` of a rank-`rank` tensor. */
relax::Expr AlongAxis(const TensorData& v, int64_t axis, int64_t rank) {
  std::vector<int64_t> shape(rank - axis, 1);
  shape[0] = v.NumElements();
  return relax::MakeConstant(TensorData(v.dtype(), shape, v.bytes()));
}

}  // namespace

absl::StatusOr<relax::Expr> Resample(const EmitFn& emit, const relax::Expr& x, const ResizeParams& p,
                                     const std::vector<double>& roi, const std::vector<double>& scales,
                                     const std::vector<double>& sizes) {
  const auto* xt = x->struct_info().as<relax::TensorStructInfoNode>();
  if (xt == nullptr || !xt->HasKnownShape()) return absl::InvalidArgumentError("the resized input needs a known shape");
  // Axes left as they are may be symbolic (the RoIs of a detector's keypoint head); resized
  // ones need a static size, their taps being constants.
  const std::vector<tir::PrimExpr> dims = xt->Dims();
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (absl::Status s = CheckResizeParams(p); !s.ok()) return s;
  DataType dtype = xt->dtype;
  if (p.mode != "nearest" && !dtype.is_float())
    return absl::UnimplementedError("linear and cubic resizing need a floating-point input");
  if (!sizes.empty() && !scales.empty()) return absl::InvalidArgumentError("give scales or sizes, not both");
  if (sizes.empty() && static_cast<int64_t>(scales.size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat("scales needs ", rank, " values (or give sizes)"));
  }
  if (!sizes.empty() && static_cast<int64_t>(sizes.size()) != rank)
    return absl::InvalidArgumentError(absl::StrCat("sizes needs ", rank, " values"));
  if (p.coordinate_mode == "tf_crop_and_resize" && static_cast<int64_t>(roi.size()) != 2 * rank) {
    return absl::InvalidArgumentError(absl::StrCat("tf_crop_and_resize needs an roi of ", 2 * rank, " values"));
  }
  relax::Expr y = x;
  Composer c(emit, x);
  for (int64_t axis = rank - 1; axis >= 0; --axis) {
    const bool identity_coordinates = KeepsUnscaledAxes(p);
    const int64_t* static_in = tir::AsConstInt(dims[axis]);
    if (static_in == nullptr) {
      if (sizes.empty() && scales[axis] == 1 && identity_coordinates) continue;
      return absl::UnimplementedError(absl::StrCat("axis ", axis, " (", tir::ShapeExprToString(dims[axis]),
                                                   ") is symbolic: it can be kept (scale 1), not resized"));
    }
    const int64_t in = *static_in;
    const double scale = sizes.empty() ? scales[axis] : sizes[axis] / static_cast<double>(in);
    const int64_t out =
        sizes.empty() ? static_cast<int64_t>(std::floor(in * scale)) : static_cast<int64_t>(sizes[axis]);
    if (scale <= 0 || out <= 0)
      return absl::InvalidArgumentError(absl::StrCat("axis ", axis, ": the scale must be positive"));
    if (out == in && scale == 1 && identity_coordinates) continue;
    double roi_start = roi.empty() ? 0 : roi[axis], roi_end = roi.empty() ? 1 : roi[rank + axis];
    AxisTaps a = ComputeTaps(p, in, out, scale, roi_start, roi_end);
    relax::Expr sum;
    for (size_t t = 0; t < a.taps.size(); ++t) {
      bool all_zero = true;
      for (double w : a.weights[t]) all_zero &= w == 0;
      if (all_zero) continue;
      TensorData idx(DataType::Int64(), {out});
      std::copy(a.taps[t].begin(), a.taps[t].end(), static_cast<int64_t*>(idx.mutable_data()));
      relax::Expr g = c.Op("take", {y, relax::MakeConstant(idx)}, {{"axis", axis}});
      if (p.mode != "nearest") {
        TensorData w(DataType::Float32(), {out});
        for (int64_t i = 0; i < out; ++i)
          static_cast<float*>(w.mutable_data())[i] = static_cast<float>(a.weights[t][i]);
        relax::Expr weight = AlongAxis(w, axis, rank);
        if (dtype != DataType::Float32()) weight = c.Cast(weight, dtype);
        g = c.Mul(g, weight);
      }
      sum = sum.defined() ? c.Add(sum, g) : g;
    }
    if (!sum.defined())
      sum = c.Mul(c.Op("take", {y, relax::MakeConstant(Int64Tensor(std::vector<int64_t>(out, 0)))}, {{"axis", axis}}),
                  c.K(0));
    if (p.coordinate_mode == "tf_crop_and_resize") {
      TensorData mask(DataType::Bool(), {out});
      for (int64_t i = 0; i < out; ++i) static_cast<uint8_t*>(mask.mutable_data())[i] = a.outside[i];
      sum = c.Op("where", {AlongAxis(mask, axis, rank), c.K(p.extrapolation), sum});
    }
    y = sum;
  }
  if (!c.status().ok()) return c.status();
  return y;
}

}  // namespace frontend
}  // namespace mlc
