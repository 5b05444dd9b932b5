/*! \file onnx_signal_converters.cc
 *  \brief ONNX signal-processing operators of opset 17: the windows (HannWindow, HammingWindow,
 *         BlackmanWindow: constants of their size, made at import in double precision), DFT and
 *         STFT (matmuls by constant cosine and sine matrices: O(n^2), which beats an FFT's
 *         gathers at the frame lengths of audio front ends).
 */
#include <cmath>
#include <optional>

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
    if (size->size() != 1 || (*size)[0] < 0)
      return absl::InvalidArgumentError("the window size must be one non-negative integer");
    absl::StatusOr<DataType> dtype =
        DtypeFromOnnx(static_cast<int32_t>(ctx.IntAttr(node, "output_datatype", onnx::TensorProto::FLOAT)));
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

/*! \brief The discrete Fourier transform along `axis` of x (..., 1 | 2): real or (real, imaginary)
 *  in the last axis; the signal cut or zero-padded to `length`; `onesided`: the first length / 2 + 1
 *  bins. Two matmuls by constant cosine and sine matrices per input part; the result is
 *  (real, imaginary) in the last axis. */
absl::StatusOr<relax::Expr> FourierTransform(Composer& c, const relax::Expr& x, const std::vector<int64_t>& shape,
                                             int64_t axis, int64_t length, bool onesided, bool inverse) {
  const int64_t rank = static_cast<int64_t>(shape.size());
  const bool complex = shape.back() == 2;
  if (shape.back() != 1 && shape.back() != 2)
    return absl::InvalidArgumentError("the last axis must hold 1 (real) or 2 (real, imaginary) values");
  if (axis < 0) axis += rank - 1;
  if (axis < 0 || axis >= rank - 1)
    return absl::InvalidArgumentError(absl::StrCat("axis ", axis, " is not a signal axis"));
  // Each part with the signal axis last.
  std::vector<int64_t> perm, inverse_perm(rank - 1);
  for (int64_t d = 0; d < rank - 1; ++d) {
    if (d != axis) perm.push_back(d);
  }
  perm.push_back(axis);
  for (int64_t d = 0; d < rank - 1; ++d) inverse_perm[perm[d]] = d;
  std::vector<int64_t> part_shape(shape.begin(), shape.end() - 1);
  auto part = [&](int64_t k) {
    relax::Expr v = c.Permute(c.Reshape(c.Slice(x, rank - 1, k, k + 1), part_shape), perm);
    const int64_t n = shape[axis];
    if (n > length) {
      v = c.Slice(v, rank - 2, 0, length);
    } else if (n < length) {
      std::vector<int64_t> pads(2 * (rank - 1), 0);
      pads.back() = length - n;
      v = c.Op("nn.pad", {v}, {{"pad_width", pads}});
    }
    return v;
  };
  const int64_t bins = onesided ? length / 2 + 1 : length;
  std::vector<double> cosines(length * bins), sines(length * bins);
  for (int64_t n = 0; n < length; ++n) {
    for (int64_t k = 0; k < bins; ++k) {
      const double angle = 2 * M_PI * static_cast<double>((k * n) % length) / static_cast<double>(length);
      cosines[n * bins + k] = std::cos(angle);
      sines[n * bins + k] = std::sin(angle);
    }
  }
  const relax::Expr cos_m = relax::MakeConstant(TensorFromDoubles(c.dtype(), {length, bins}, cosines));
  const relax::Expr sin_m = relax::MakeConstant(TensorFromDoubles(c.dtype(), {length, bins}, sines));
  auto mm = [&](const relax::Expr& a, const relax::Expr& m) { return c.Op("matmul", {a, m}); };
  // e^(-i theta) forward, e^(+i theta) inverse (then / length).
  const double sign = inverse ? 1 : -1;
  relax::Expr re = part(0);
  relax::Expr out_re = mm(re, cos_m), out_im = c.Mul(mm(re, sin_m), c.K(sign));
  if (complex) {
    relax::Expr im = part(1);
    out_re = c.Sub(out_re, c.Mul(mm(im, sin_m), c.K(sign)));
    out_im = c.Add(out_im, mm(im, cos_m));
  }
  if (inverse) {
    out_re = c.Div(out_re, c.K(static_cast<double>(length)));
    out_im = c.Div(out_im, c.K(static_cast<double>(length)));
  }
  std::vector<int64_t> with_pair;
  for (int64_t d : perm) with_pair.push_back(d == axis ? bins : shape[d]);
  with_pair.push_back(1);
  relax::Expr pair = c.Op("concat", {c.Reshape(out_re, with_pair), c.Reshape(out_im, with_pair)}, {{"axis", rank - 1}});
  std::vector<int64_t> back = inverse_perm;
  back.push_back(rank - 1);
  relax::Expr out = c.Permute(pair, back);
  if (!c.status().ok()) return c.status();
  return out;
}

/*! \brief DFT (opset 17): input (..., 1 | 2), dft_length a constant (default the signal's). */
Outputs Dft(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> shape = StaticShape(*x, "DFT's input");
  if (!shape.ok()) return shape.status();
  int64_t axis = ctx.IntAttr(node, "axis", 1);
  const int64_t rank = static_cast<int64_t>(shape->size());
  if (rank < 2) return absl::InvalidArgumentError("DFT's input needs a signal axis and a last axis of 1 or 2");
  const int64_t signal_axis = axis < 0 ? axis + rank - 1 : axis;
  int64_t length = signal_axis >= 0 && signal_axis < rank - 1 ? (*shape)[signal_axis] : 0;
  if (ctx.HasInput(node, 1)) {
    absl::StatusOr<std::vector<int64_t>> l = ctx.ConstantInts(node, 1, "dft_length");
    if (!l.ok()) return l.status();
    if (l->size() != 1 || (*l)[0] < 1) return absl::InvalidArgumentError("dft_length must be one positive integer");
    length = (*l)[0];
  }
  const bool onesided = ctx.IntAttr(node, "onesided", 0) != 0, inverse = ctx.IntAttr(node, "inverse", 0) != 0;
  if (onesided && inverse) return absl::InvalidArgumentError("an inverse DFT cannot be onesided");
  if (onesided && shape->back() == 2) return absl::InvalidArgumentError("a onesided DFT takes a real signal");
  Composer c(ctx, *x);
  absl::StatusOr<relax::Expr> y = FourierTransform(c, *x, *shape, axis, length, onesided, inverse);
  if (!y.ok()) return y.status();
  return c.Result(*y);
}

/*! \brief STFT (opset 17): signal (batch, length, 1 | 2) in frames of frame_length (a constant, or
 *  the window's length) every frame_step (a constant), each times the window (any value) and
 *  transformed; (batch, frames, bins, 2). The frames are one take of constant indices. */
Outputs Stft(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> signal = ctx.Input(node, 0);
  if (!signal.ok()) return signal.status();
  absl::StatusOr<std::vector<int64_t>> shape = StaticShape(*signal, "STFT's signal");
  if (!shape.ok()) return shape.status();
  if (shape->size() != 3) return absl::InvalidArgumentError("STFT's signal must be (batch, length, 1 | 2)");
  absl::StatusOr<std::vector<int64_t>> step = ctx.ConstantInts(node, 1, "frame_step");
  if (!step.ok()) return step.status();
  if (step->size() != 1 || (*step)[0] < 1) return absl::InvalidArgumentError("frame_step must be one positive integer");
  std::optional<relax::Expr> window;
  int64_t length = 0;
  if (ctx.HasInput(node, 2)) {
    absl::StatusOr<relax::Expr> w = ctx.Input(node, 2);
    if (!w.ok()) return w.status();
    absl::StatusOr<std::vector<int64_t>> ws = StaticShape(*w, "STFT's window");
    if (!ws.ok()) return ws.status();
    if (ws->size() != 1) return absl::InvalidArgumentError("the window must be 1-D");
    window = *w;
    length = (*ws)[0];
  }
  if (ctx.HasInput(node, 3)) {
    absl::StatusOr<std::vector<int64_t>> l = ctx.ConstantInts(node, 3, "frame_length");
    if (!l.ok()) return l.status();
    if (l->size() != 1 || (*l)[0] < 1 || (window && (*l)[0] != length)) {
      return absl::InvalidArgumentError(
          "frame_length must be one positive integer, the window's length when there is one");
    }
    length = (*l)[0];
  }
  if (length == 0) return absl::InvalidArgumentError("STFT needs a window or a frame_length");
  const int64_t batch = (*shape)[0], samples = (*shape)[1], parts = (*shape)[2];
  if (length > samples)
    return absl::InvalidArgumentError(
        absl::StrCat("the frame (", length, ") is longer than the signal (", samples, ")"));
  const int64_t frames = 1 + (samples - length) / (*step)[0];
  std::vector<int64_t> indices;
  for (int64_t f = 0; f < frames; ++f) {
    for (int64_t i = 0; i < length; ++i) indices.push_back(f * (*step)[0] + i);
  }
  Composer c(ctx, *signal);
  relax::Expr framed = c.Op("take", {*signal, relax::MakeConstant(Int64Tensor(indices))}, {{"axis", int64_t{1}}});
  framed = c.Reshape(framed, {batch, frames, length, parts});
  if (window) framed = c.Mul(framed, c.Reshape(*window, {length, 1}));
  const bool onesided = ctx.IntAttr(node, "onesided", 1) != 0;
  if (onesided && parts == 2) return absl::InvalidArgumentError("a onesided STFT takes a real signal");
  absl::StatusOr<relax::Expr> y =
      FourierTransform(c, framed, {batch, frames, length, parts}, 2, length, onesided, false);
  if (!y.ok()) return y.status();
  return c.Result(*y);
}

}  // namespace

void RegisterSignalOnnxConverters(OnnxConverterRegistry& r) {
  r.Register("DFT", Dft);
  r.Register("STFT", Stft);
  r.Register("HannWindow", Window({0.5, -0.5}));
  r.Register("HammingWindow", Window({25.0 / 46, -21.0 / 46}));
  r.Register("BlackmanWindow", Window({0.42, -0.5, 0.08}));
}

}  // namespace onnx_import
}  // namespace mlc
