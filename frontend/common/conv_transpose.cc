#include "frontend/common/conv_transpose.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "frontend/common/static_shape.h"
#include "ir/graph/struct_info.h"
#include "ir/tir/tir_util.h"
#include "support/checked_math.h"
#include "support/tensor_data.h"

namespace mlc {
namespace frontend {

namespace {

/*! \brief e with its `length` entries along `axis` in reverse order (a take of the reversed
 *  positions; the identity for one entry). */
relax::Expr Reversed(Composer& c, const relax::Expr& e, int64_t axis, int64_t length) {
  if (length == 1) return e;
  std::vector<int64_t> reversed(length);
  for (int64_t i = 0; i < length; ++i) reversed[i] = length - 1 - i;
  return c.Op("take", {e, relax::MakeConstant(Int64Tensor(reversed))}, {{"axis", axis}});
}

/*! \brief The output size along spatial axis d. */
int64_t OutputSize(const std::vector<int64_t>& xs, const std::vector<int64_t>& ws, const ConvTransposeParams& p,
                   size_t d) {
  const size_t dims = xs.size() - 2;
  return (xs[2 + d] - 1) * p.strides[d] - p.padding[d] - p.padding[d + dims] + ws[2 + d] + p.output_padding[d];
}

/*! \brief Outputs ConvTransposeByPhases computes per phase along an axis: enough for the
 *  padding's start and the output. */
int64_t PhaseBlocks(int64_t in, int64_t out, int64_t s, int64_t pad) {
  return std::max<int64_t>(DivRoundUp(out + pad, s), in);
}

/*! \brief A strided transposed convolution (groups 1, no dilation) as one stride-1 convolution
 *  per output phase, all in one: out[s * q + r - pad] = sum over m of x[q - m] * w[s * m + r]
 *  per axis, so phase r is a convolution of the undilated input by the taps r, r + s, ...
 *  (M = ceil(k / s) of them, reversed, zeros past k), its outputs the phase's channels of a
 *  convolution to C_out x prod(s) channels; depth-to-space interleaves the phases and a slice
 *  crops the padding. The multiply-adds are the direct kernel's (prod(s) times fewer than
 *  through the dilated input), up to the zero taps when s does not divide k. */
absl::StatusOr<relax::Expr> ConvTransposeByPhases(Composer& c, const relax::Expr& x, const relax::Expr& w,
                                                  const std::vector<int64_t>& xs, const std::vector<int64_t>& ws,
                                                  const ConvTransposeParams& p) {
  const size_t dims = xs.size() - 2;
  const int64_t batch = xs[0], c_in = ws[0], c_out = ws[1];
  std::vector<int64_t> taps(dims), blocks(dims), out(dims), conv_padding(2 * dims), pad_w(4, 0);
  // The weight (C_in, C_out, k...) -> (C_in, C_out, M, s, ...) -> taps reversed ->
  // (C_out, s..., C_in, M...) -> (C_out * prod(s), C_in, M...).
  std::vector<int64_t> split = {c_in, c_out}, to_phases = {1}, phases = {c_out}, kernel_shape = {c_in};
  int64_t phase_count = 1;
  for (size_t d = 0; d < dims; ++d) {
    const int64_t k = ws[2 + d], s = p.strides[d];
    taps[d] = DivRoundUp(k, s);
    out[d] = OutputSize(xs, ws, p, d);
    blocks[d] = PhaseBlocks(xs[2 + d], out[d], s, p.padding[d]);
    conv_padding[d] = taps[d] - 1;
    conv_padding[d + dims] = blocks[d] - xs[2 + d];
    pad_w.insert(pad_w.end(), {0, taps[d] * s - k});
    split.insert(split.end(), {taps[d], s});
    phases.push_back(s);
    phase_count *= s;
  }
  for (size_t d = 0; d < dims; ++d) to_phases.push_back(static_cast<int64_t>(3 + 2 * d));
  to_phases.push_back(0);
  for (size_t d = 0; d < dims; ++d) to_phases.push_back(static_cast<int64_t>(2 + 2 * d));
  kernel_shape.insert(kernel_shape.begin(), c_out * phase_count);
  kernel_shape.insert(kernel_shape.end(), taps.begin(), taps.end());
  relax::Expr kernel = c.Reshape(c.Op("nn.pad", {w}, {{"pad_width", pad_w}}), split);
  for (size_t d = 0; d < dims; ++d) kernel = Reversed(c, kernel, static_cast<int64_t>(2 + 2 * d), taps[d]);
  kernel = c.Reshape(c.Permute(kernel, to_phases), kernel_shape);
  relax::Expr z = c.Op(dims == 2 ? "nn.conv2d" : "nn.conv3d", {x, kernel},
                       {{"strides", std::vector<int64_t>(dims, 1)},
                        {"padding", conv_padding},
                        {"dilation", std::vector<int64_t>(dims, 1)},
                        {"groups", int64_t{1}}});
  // (N, C_out * prod(s), Z...) -> (N, C_out, s..., Z...) -> (N, C_out, Z, s, ...) -> (N, C_out, Z * s, ...).
  std::vector<int64_t> by_phase = {batch, c_out}, interleave = {0, 1}, joined = {batch, c_out}, axes, begin, end;
  by_phase.insert(by_phase.end(), phases.begin() + 1, phases.end());
  by_phase.insert(by_phase.end(), blocks.begin(), blocks.end());
  for (size_t d = 0; d < dims; ++d) {
    interleave.insert(interleave.end(), {static_cast<int64_t>(2 + dims + d), static_cast<int64_t>(2 + d)});
    joined.push_back(blocks[d] * p.strides[d]);
    axes.push_back(static_cast<int64_t>(2 + d));
    begin.push_back(p.padding[d]);
    end.push_back(p.padding[d] + out[d]);
  }
  relax::Expr y = c.Reshape(c.Permute(c.Reshape(z, by_phase), interleave), joined);
  return c.Op("strided_slice", {y}, {{"axes", axes}, {"begin", begin}, {"end", end}});
}

/*! \brief The most ConvTransposeByPhases may multiply-add beyond the exact phases' count
 *  before ConvTransposeByExactPhases replaces it. */
constexpr double kMaxPhaseExcess = 1.2;

/*! \brief One output phase along one axis of a strided transposed convolution: the outputs
 *  o = s * q + r - pad (r: `phase`) for q in [first, first + count), which are o = s * j + slot,
 *  read by the taps r, r + s, ... (`taps` of them, all inside the kernel). */
struct AxisPhase {
  int64_t phase = 0, taps = 0, first = 0, count = 0, slot = 0;
  int64_t pad_before = 0, pad_after = 0;  // of the input, for the phase's stride-1 convolution
};

/*! \brief The phases of one axis, or nullopt when they do not have equally many outputs (the
 *  output is not a multiple of the stride) or one has no tap (a stride above the kernel). */
std::optional<std::vector<AxisPhase>> AxisPhases(int64_t in, int64_t out, int64_t k, int64_t s, int64_t pad) {
  std::vector<AxisPhase> phases(s);
  for (int64_t r = 0; r < s; ++r) {
    AxisPhase& a = phases[r];
    a.phase = r;
    a.taps = DivRoundUp(k - r, s);
    a.first = DivRoundUp(pad - r, s);
    a.count = DivRoundDown(out - 1 + pad - r, s) - a.first + 1;
    a.slot = s * a.first + r - pad;
    // Output j reads x[first + j - m] for tap m: a stride-1 convolution by the reversed taps
    // over the input padded by taps - 1 - first before and first + count - in after.
    a.pad_before = a.taps - 1 - a.first;
    a.pad_after = a.first + a.count - in;
    if (a.taps < 1 || a.count != out / s || out % s != 0) return std::nullopt;
  }
  return phases;
}

/*! \brief A strided transposed convolution (groups 1, no dilation) as one stride-1 convolution
 *  per output phase, each by its own taps over its own window of the input, so no phase
 *  computes an output that is cropped or multiplies a tap past the kernel:
 *  out[s * q + r - pad] = sum over m of x[q - m] * w[s * m + r] per axis. The phases are
 *  concatenated along the channels in the order of the outputs they fill and interleaved by
 *  depth-to-space. DCGAN's 4 x 4 stride-2 layers as one convolution to C_out x 4 channels over
 *  the input padded by one: 5 x 5 outputs per phase for 4 x 4 used (1.56x the multiply-adds),
 *  9 x 9 for 8 x 8 (1.27x), 17 x 17 for 16 x 16 (1.13x); a 3 x 3 kernel at stride 2 also pads
 *  each phase's taps to 2 x 2 (1.78x). nullopt where the phases differ in size (the output not
 *  a multiple of the strides), or where one convolution computes at most kMaxPhaseExcess times
 *  their multiply-adds: ConvTransposeByPhases then. */
std::optional<relax::Expr> ConvTransposeByExactPhases(Composer& c, const relax::Expr& x, const relax::Expr& w,
                                                      const std::vector<int64_t>& xs, const std::vector<int64_t>& ws,
                                                      const ConvTransposeParams& p) {
  const size_t dims = xs.size() - 2;
  const int64_t batch = xs[0], c_out = ws[1];
  std::vector<std::vector<AxisPhase>> axes;
  double excess = 1;
  for (size_t d = 0; d < dims; ++d) {
    const int64_t k = ws[2 + d], s = p.strides[d];
    const int64_t out = OutputSize(xs, ws, p, d);
    std::optional<std::vector<AxisPhase>> phases = AxisPhases(xs[2 + d], out, k, s, p.padding[d]);
    if (!phases) return std::nullopt;
    // ConvTransposeByPhases's multiply-adds over these: each of s phases takes ceil(k / s) taps
    // at PhaseBlocks outputs, where these take k taps in all at out / s outputs.
    excess *= static_cast<double>(PhaseBlocks(xs[2 + d], out, s, p.padding[d]) * DivRoundUp(k, s) * s) /
              static_cast<double>(out / s * k);
    // Listed by the slot they fill, the order depth-to-space interleaves them in.
    std::sort(phases->begin(), phases->end(), [](const AxisPhase& a, const AxisPhase& b) { return a.slot < b.slot; });
    axes.push_back(*std::move(phases));
  }
  // Separate phases cost their concatenation and interleaving, a pass over the output the
  // one convolution's epilogue does not make: DCGAN's 16 -> 32 layer (1.13x the multiply-adds
  // as one convolution) took 11.7 ms in phases against 11.5 as one, its 8 -> 16 layer (1.27x)
  // 10.3 against 12.4.
  if (excess <= kMaxPhaseExcess) return std::nullopt;
  // Every combination of one phase per axis, the last axis fastest.
  std::vector<relax::Expr> parts;
  std::vector<size_t> pick(dims, 0);
  while (true) {
    relax::Expr kernel = w, data = x;
    std::vector<int64_t> padding(2 * dims), crop_axes, crop_begin, crop_end;
    for (size_t d = 0; d < dims; ++d) {
      const AxisPhase& a = axes[d][pick[d]];
      // The phase's taps, reversed: w[s * (taps - 1) + r], ..., w[r].
      std::vector<int64_t> taps(a.taps);
      for (int64_t m = 0; m < a.taps; ++m) taps[m] = p.strides[d] * (a.taps - 1 - m) + a.phase;
      kernel = c.Op("take", {kernel, relax::MakeConstant(Int64Tensor(taps))}, {{"axis", static_cast<int64_t>(2 + d)}});
      // Negative padding crops the input instead.
      padding[d] = std::max<int64_t>(a.pad_before, 0);
      padding[d + dims] = std::max<int64_t>(a.pad_after, 0);
      if (a.pad_before < 0 || a.pad_after < 0) {
        crop_axes.push_back(static_cast<int64_t>(2 + d));
        crop_begin.push_back(std::max<int64_t>(-a.pad_before, 0));
        crop_end.push_back(xs[2 + d] + std::min<int64_t>(a.pad_after, 0));
      }
    }
    if (!crop_axes.empty())
      data = c.Op("strided_slice", {data}, {{"axes", crop_axes}, {"begin", crop_begin}, {"end", crop_end}});
    // (C_in, C_out, taps...) -> (C_out, C_in, taps...).
    std::vector<int64_t> swap = {1, 0};
    for (size_t d = 0; d < dims; ++d) swap.push_back(static_cast<int64_t>(2 + d));
    parts.push_back(c.Op(dims == 2 ? "nn.conv2d" : "nn.conv3d", {data, c.Permute(kernel, swap)},
                         {{"strides", std::vector<int64_t>(dims, 1)},
                          {"padding", padding},
                          {"dilation", std::vector<int64_t>(dims, 1)},
                          {"groups", int64_t{1}}}));
    size_t d = dims;
    while (d > 0 && ++pick[d - 1] == axes[d - 1].size()) pick[--d] = 0;
    if (d == 0) break;
  }
  relax::Expr z = parts.size() == 1 ? parts[0] : c.Op("concat", parts, {{"axis", int64_t{1}}});
  // (N, prod(s) * C_out, Q...) -> (N, s..., C_out, Q...) -> (N, C_out, Q, s, ...) -> (N, C_out, Q * s, ...).
  std::vector<int64_t> by_phase = {batch}, interleave = {0, static_cast<int64_t>(1 + dims)}, joined = {batch, c_out};
  by_phase.insert(by_phase.end(), p.strides.begin(), p.strides.end());
  by_phase.push_back(c_out);
  for (size_t d = 0; d < dims; ++d) {
    by_phase.push_back(axes[d][0].count);
    interleave.insert(interleave.end(), {static_cast<int64_t>(2 + dims + d), static_cast<int64_t>(1 + d)});
    joined.push_back(axes[d][0].count * p.strides[d]);
  }
  return c.Reshape(c.Permute(c.Reshape(z, by_phase), interleave), joined);
}

}  // namespace

absl::StatusOr<relax::Expr> ConvTranspose(const EmitFn& emit, const relax::Expr& x, const relax::Expr& w,
                                          const ConvTransposeParams& p) {
  absl::StatusOr<std::vector<int64_t>> xs = KnownShape(x, "a transposed convolution's input"),
                                       ws = StaticShape(w, "a transposed convolution's weight");
  if (!xs.ok()) return xs.status();
  if (!ws.ok()) return ws.status();
  if (xs->size() != ws->size())
    return absl::InvalidArgumentError("a transposed convolution needs an input and a weight of the same rank");
  const size_t dims = xs->size() - 2;
  if (dims < 2 || dims > 3 || p.strides.size() != dims || p.dilation.size() != dims ||
      p.output_padding.size() != dims || p.padding.size() != 2 * dims) {
    return absl::InvalidArgumentError(
        absl::StrCat("a transposed convolution over ", dims,
                     " spatial axes needs that many strides, dilations and output paddings and twice as many pads"));
  }
  if (std::any_of(xs->begin() + 1, xs->end(), [](int64_t e) { return e < 0; })) {
    return absl::UnimplementedError(
        "a transposed convolution needs static channels and image size (the batch may be symbolic)");
  }
  const int64_t c_in = (*ws)[0], c_out_per_group = (*ws)[1], groups = p.groups;
  if (groups <= 0 || c_in % groups != 0 || (*xs)[1] != c_in) {
    return absl::InvalidArgumentError(absl::StrCat("input channels ", (*xs)[1], ", weight ", c_in, " x ",
                                                   c_out_per_group, " and groups ", groups, " disagree"));
  }
  std::vector<int64_t> conv_padding(2 * dims), in(xs->begin() + 2, xs->end()), dilated(dims), lo(dims), hi(dims);
  bool crops = false, strided = false;
  for (size_t d = 0; d < dims; ++d) {
    const int64_t s = p.strides[d], span = ((*ws)[2 + d] - 1) * p.dilation[d];
    if (s < 1 || p.dilation[d] < 1) return absl::InvalidArgumentError("strides and dilations must be positive");
    // The dilated input below ends with s - 1 zeros already.
    lo[d] = span - p.padding[d];
    hi[d] = span - p.padding[d + dims] + p.output_padding[d] - (s - 1);
    conv_padding[d] = std::max<int64_t>(lo[d], 0);
    conv_padding[d + dims] = std::max<int64_t>(hi[d], 0);
    dilated[d] = in[d] * s;
    crops |= lo[d] < 0 || hi[d] < 0;
    strided |= s > 1;
  }
  Composer c(emit, x);
  if (strided && groups == 1 && std::all_of(p.dilation.begin(), p.dilation.end(), [](int64_t d) { return d == 1; })) {
    std::optional<relax::Expr> exact = ConvTransposeByExactPhases(c, x, w, *xs, *ws, p);
    absl::StatusOr<relax::Expr> y = exact ? *exact : ConvTransposeByPhases(c, x, w, *xs, *ws, p);
    if (!c.status().ok()) return c.status();
    return y;
  }
  // The weight: (C_in, C_out/g, k...) -> (C_out, C_in/g, k...), flipped spatially.
  std::vector<int64_t> grouped = {groups, c_in / groups, c_out_per_group}, swap = {0, 2, 1},
                       swapped = {groups * c_out_per_group, c_in / groups};
  for (size_t d = 0; d < dims; ++d) {
    grouped.push_back((*ws)[2 + d]);
    swap.push_back(static_cast<int64_t>(3 + d));
    swapped.push_back((*ws)[2 + d]);
  }
  relax::Expr kernel = c.Reshape(c.Permute(c.Reshape(w, grouped), swap), swapped);
  for (size_t d = 0; d < dims; ++d) kernel = Reversed(c, kernel, static_cast<int64_t>(2 + d), (*ws)[2 + d]);
  relax::Expr y = x;
  // Dilation by the strides: (N, C, H, W) -> (N, C, H, 1, W, 1), padded to (N, C, H, sh, W, sw),
  // merged to (N, C, H * sh, W * sw). A symbolic batch is the reshapes' -1.
  if (strided) {
    std::vector<int64_t> split = {(*xs)[0], c_in}, joined = {(*xs)[0], c_in}, pad_width(4, 0);
    for (size_t d = 0; d < dims; ++d) {
      split.insert(split.end(), {in[d], 1});
      joined.push_back(dilated[d]);
      pad_width.insert(pad_width.end(), {0, 0, 0, p.strides[d] - 1});
    }
    y = c.Reshape(c.Op("nn.pad", {c.Reshape(y, split)}, {{"pad_width", pad_width}}), joined);
  }
  // Negative padding crops.
  if (crops) {
    std::vector<int64_t> axes, begin, end;
    for (size_t d = 0; d < dims; ++d) {
      axes.push_back(static_cast<int64_t>(2 + d));
      begin.push_back(std::max<int64_t>(-lo[d], 0));
      end.push_back(dilated[d] + std::min<int64_t>(hi[d], 0));
    }
    y = c.Op("strided_slice", {y}, {{"axes", axes}, {"begin", begin}, {"end", end}});
  }
  y = c.Op(dims == 2 ? "nn.conv2d" : "nn.conv3d", {y, kernel},
           {{"strides", std::vector<int64_t>(dims, 1)},
            {"padding", conv_padding},
            {"dilation", p.dilation},
            {"groups", groups}});
  if (!c.status().ok()) return c.status();
  return y;
}

}  // namespace frontend
}  // namespace mlc
