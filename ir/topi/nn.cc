/*! \file nn.cc
 *  \brief Convolution and pooling over 2 or 3 spatial axes (NCHW, NCDHW, channels optionally
 *         blocked) as tensor expressions (names as TVM's topi prints them: pad_temp,
 *         conv2d_nchw, conv3d_ncdhw, pool_max, pool_sum/pool_avg, adaptive_pool_avg).
 */
#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "ir/graph/layout.h"
#include "ir/graph/shape_util.h"
#include "ir/topi/index_util.h"
#include "ir/topi/topi.h"

namespace mlc {
namespace topi {
namespace {

using detail::C;

DataType IndexType(const Tensor& t) { return detail::IndexType({t}); }

/*! \brief The spatial axes of an image layout: the primal letters after N and C ("HW", "DHW"). */
std::string SpatialAxes(const Layout& l) { return l.Primal().substr(2); }

/*! \brief Padding of the spatial axes of data in `layout`: padding[d] before and padding[d + n]
 *  after spatial axis d of n ((top, left, bottom, right) in 2-D), as per-dimension widths. */
absl::StatusOr<Tensor> PadSpatial(const Tensor& x, const std::vector<int64_t>& padding, tir::PrimExpr value,
                                  const Layout& layout) {
  if (std::all_of(padding.begin(), padding.end(), [](int64_t p) { return p == 0; })) return x;
  const std::string spatial = SpatialAxes(layout);
  const size_t n = spatial.size();
  std::vector<int64_t> before(x.ndim(), 0), after(x.ndim(), 0);
  for (size_t d = 0; d < n; ++d) {
    before[layout.PositionOf(spatial[d])] = padding[d];
    after[layout.PositionOf(spatial[d])] = padding[d + n];
  }
  return Pad(x, before, after, value);
}

/*! \brief A layout of image data with 2 or 3 spatial axes (primal NCHW or NCDHW, only the
 *  channels may be blocked) for `rank`-d data (any rank when negative), or an error naming the
 *  operator. */
absl::StatusOr<Layout> ImageLayout(const std::string& text, const std::string& op, int rank = -1) {
  absl::StatusOr<Layout> l = Layout::Parse(text);
  if (!l.ok()) return absl::InvalidArgumentError(absl::StrCat(op, ": ", l.status().message()));
  const std::string primal = l->Primal();
  if ((primal != "NCHW" && primal != "NCDHW") || !l->BlocksOnlyChannels()) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": layout ", text, " is not NCHW or NCDHW with the channels optionally blocked"));
  }
  if (rank >= 0 && static_cast<int>(l->ndim()) != rank) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": layout ", text, " needs ", l->ndim(), "-d data, got ", rank, "-d"));
  }
  return *l;
}

/*! \brief The reduction axis over spatial axis `a` of a window: TVM's names (ry, rx; rz for depth,
 *  or kh, kw, kd beside blocked channels). */
std::string WindowAxisName(char a, bool blocked) {
  if (blocked) return absl::StrCat("k", std::string(1, static_cast<char>(a - 'A' + 'a')));
  return a == 'D' ? "rz" : a == 'H' ? "ry" : "rx";
}

}  // namespace

absl::StatusOr<Tensor> Pad(const Tensor& x, const std::vector<int64_t>& before, const std::vector<int64_t>& after,
                           tir::PrimExpr value, PadMode mode) {
  std::vector<int> padded_dims;
  for (size_t d = 0; d < before.size() && d < after.size(); ++d) {
    if (before[d] != 0 || after[d] != 0) padded_dims.push_back(static_cast<int>(d));
  }
  absl::StatusOr<std::vector<int64_t>> xs = KnownExtents(x, padded_dims, "pad");
  if (!xs.ok()) return xs.status();
  size_t rank = xs->size();
  if (before.size() != rank || after.size() != rank) {
    return absl::InvalidArgumentError(absl::StrCat("pad: ", rank, "-d data needs ", rank, " widths before and after"));
  }
  for (size_t d = 0; d < rank; ++d) {
    if (before[d] < 0 || after[d] < 0)
      return absl::UnimplementedError("pad: negative widths (cropping) are not supported");
    if (mode == PadMode::kReflect && (before[d] >= (*xs)[d] || after[d] >= (*xs)[d])) {
      return absl::InvalidArgumentError(absl::StrCat("pad: reflect widths must be below the dimension; dimension ", d,
                                                     " is ", (*xs)[d], ", widths ", before[d], " and ", after[d]));
    }
  }
  DataType it = IndexType(x);
  std::vector<tir::PrimExpr> shape;
  std::vector<std::string> names;
  for (size_t d = 0; d < rank; ++d) {
    shape.push_back(before[d] == 0 && after[d] == 0 ? x.shape()[d] : C(it, (*xs)[d] + before[d] + after[d]));
    names.push_back(absl::StrCat("i", d));
  }
  return te::Compute(
      shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        tir::PrimExpr inside;
        std::vector<tir::PrimExpr> index;
        for (size_t d = 0; d < rank; ++d) {
          if (before[d] == 0 && after[d] == 0) {
            index.push_back(i[d]);
            continue;
          }
          tir::PrimExpr v = tir::operator-(tir::PrimExpr(i[d]), C(it, before[d]));
          tir::PrimExpr last = C(it, (*xs)[d] - 1);
          if (mode == PadMode::kEdge) {
            index.push_back(tir::Min(tir::Max(v, C(it, 0)), last));
            continue;
          }
          if (mode == PadMode::kReflect) {
            // |v| folds the start; last - |last - |v|| folds the end.
            tir::PrimExpr a = tir::Max(v, tir::operator-(C(it, 0), v));
            tir::PrimExpr from_end = tir::operator-(last, a);
            index.push_back(tir::operator-(last, tir::Max(from_end, tir::operator-(C(it, 0), from_end))));
            continue;
          }
          tir::PrimExpr in_d = tir::operator&&(tir::operator>=(v, C(it, 0)), tir::operator<(v, C(it, (*xs)[d])));
          inside = inside.defined() ? tir::operator&&(inside, in_d) : in_d;
          // Clamp the index so the load stays in bounds even where the select discards it.
          index.push_back(tir::Min(tir::Max(v, C(it, 0)), C(it, (*xs)[d] - 1)));
        }
        if (!inside.defined()) return x(index);  // zero widths: a copy
        return tir::Select(inside, x(index), value);
      },
      "pad_temp", names);
}

absl::StatusOr<Tensor> Conv(const Tensor& x, const Tensor& w, const std::vector<int64_t>& strides,
                            const std::vector<int64_t>& padding, const std::vector<int64_t>& dilation, int64_t groups,
                            const std::string& data_layout, const std::string& kernel_layout,
                            const std::string& out_layout) {
  absl::StatusOr<Layout> dl = ImageLayout(data_layout, "conv", static_cast<int>(x.ndim()));
  if (!dl.ok()) return dl.status();
  const std::string spatial = SpatialAxes(*dl);
  const size_t n = spatial.size();
  const std::string op = absl::StrCat("conv", n, "d");
  absl::StatusOr<Layout> ol = ImageLayout(out_layout.empty() ? data_layout : out_layout, op);
  if (!ol.ok()) return ol.status();
  absl::StatusOr<Layout> kl = Layout::Parse(kernel_layout);
  if (!kl.ok()) return absl::InvalidArgumentError(absl::StrCat(op, ": ", kl.status().message()));
  if (kl->Primal() != "OI" + spatial || !kl->BlocksOnlyChannels() || kl->ndim() != w.ndim() ||
      SpatialAxes(*ol) != spatial) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": kernel layout ", kernel_layout, " is not OI", spatial, " (channels optionally blocked) of ",
                     w.ndim(), "-d weights, or out layout ", ol->name(), " has other spatial axes"));
  }
  if (strides.size() != n || dilation.size() != n || padding.size() != 2 * n) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": strides and dilation need ", n, " values, padding ", 2 * n));
  }
  absl::StatusOr<std::vector<int64_t>> xshape = KnownExtents(x, {}, op);
  if (!xshape.ok()) return xshape.status();
  absl::StatusOr<std::vector<int64_t>> wshape = StaticShape(w, op);
  if (!wshape.ok()) return wshape.status();
  std::vector<int64_t> xs = dl->ShapeToPrimal(*xshape), ws = kl->ShapeToPrimal(*wshape);
  if (std::any_of(xs.begin() + 1, xs.end(), [](int64_t e) { return e < 0; })) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": the channels and ", spatial, " must be static"));
  }
  if (ws[1] * groups != xs[1] || ws[0] % groups != 0) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": data ", relax::ShapeToString(xs), " and weight ",
                                                   relax::ShapeToString(ws), " do not agree for groups=", groups));
  }
  DataType it = IndexType(x);
  std::vector<tir::PrimExpr> out_primal = {x.shape()[dl->PositionOf('N')], C(it, ws[0])};
  for (size_t d = 0; d < n; ++d) {
    int64_t extent = relax::WindowExtent(xs[2 + d], padding[d], padding[d + n], ws[2 + d], dilation[d], strides[d]);
    if (extent <= 0)
      return absl::InvalidArgumentError(absl::StrCat(op, ": the window is larger than the padded input"));
    out_primal.push_back(C(it, extent));
  }
  absl::StatusOr<std::vector<tir::PrimExpr>> out_shape = ol->ShapeFromPrimal(out_primal);
  if (!out_shape.ok()) return absl::InvalidArgumentError(absl::StrCat(op, ": ", out_shape.status().message()));
  absl::StatusOr<Tensor> padded = PadSpatial(x, padding, tir::Const(x.dtype(), 0), *dl);
  if (!padded.ok()) return padded.status();
  int64_t in_per_group = ws[1], out_per_group = ws[0] / groups;
  // The input channels of a group: blocked as the data blocks them (two reduction axes, so the
  // data and the weight are read at affine indices), one axis, or none (depthwise).
  const int64_t cb = dl->Factor('C');
  const bool depthwise = groups > 1 && in_per_group == 1 && out_per_group == 1;
  const bool blocked_reduction = !depthwise && cb > 1 && in_per_group % cb == 0;
  std::vector<te::ReduceAxis> axes, window;
  Layout::Coord rc;
  if (blocked_reduction) {
    te::ReduceAxis rco = te::MakeReduceAxis(C(it, in_per_group / cb), "ic_outer");
    te::ReduceAxis rci = te::MakeReduceAxis(C(it, cb), "ic_inner");
    axes = {rco};
    rc = Layout::Coord::Split(rco, rci, cb);
    for (size_t d = 0; d < n; ++d)
      window.push_back(te::MakeReduceAxis(C(it, ws[2 + d]), WindowAxisName(spatial[d], true)));
    axes.insert(axes.end(), window.begin(), window.end());
    axes.push_back(rci);
  } else {
    if (in_per_group > 1) {
      te::ReduceAxis r = te::MakeReduceAxis(C(it, in_per_group), "rc");
      axes.push_back(r);
      rc = Layout::Coord::Whole(r);
    } else {
      rc = Layout::Coord::Whole(C(it, 0));
    }
    for (size_t d = 0; d < n; ++d)
      window.push_back(te::MakeReduceAxis(C(it, ws[2 + d]), WindowAxisName(spatial[d], false)));
    axes.insert(axes.end(), window.begin(), window.end());
  }
  // Axis names as TVM's topi prints them: nn, ff, yy, xx (zz for depth), or n, oc_chunk, oh, ow, oc_block.
  bool primal = dl->IsPrimal() && ol->IsPrimal() && kl->IsPrimal();
  std::vector<std::string> names =
      primal ? std::vector<std::string>{"nn", "ff"} : std::vector<std::string>{"n", "oc_chunk"};
  for (char a : spatial) {
    names.push_back(primal ? (a == 'D'   ? "zz"
                              : a == 'H' ? "yy"
                                         : "xx")
                           : absl::StrCat("o", std::string(1, static_cast<char>(a - 'A' + 'a'))));
  }
  if (!primal) names.push_back("oc_block");
  names.resize(ol->ndim());
  std::string lower_primal = dl->Primal();
  std::transform(lower_primal.begin(), lower_primal.end(), lower_primal.begin(), ::tolower);
  return te::Compute(
      *out_shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> index(i.begin(), i.end());
        std::map<char, Layout::Coord> out = ol->CoordsOf(index);
        const Layout::Coord& o = out.at('C');
        // The data channel: the output channel's (depthwise), or the group's first plus rc.
        Layout::Coord channel = rc;
        if (depthwise) {
          channel = o;
        } else if (groups > 1) {
          // A grouped convolution reads its group's channels; blocked, a group's first block.
          tir::PrimExpr group = tir::FloorDiv(o.Value(), C(it, out_per_group));
          channel = blocked_reduction
                        ? Layout::Coord::Split(
                              tir::operator+(tir::operator*(group, C(it, in_per_group / cb)), rc.outer), rc.inner, cb)
                        : Layout::Coord::Whole(tir::operator+(tir::operator*(group, C(it, in_per_group)), rc.Value()));
        }
        std::map<char, Layout::Coord> data_coords = {{'N', out.at('N')}, {'C', channel}};
        std::map<char, Layout::Coord> weight_coords = {{'O', o}, {'I', rc}};
        for (size_t d = 0; d < n; ++d) {
          tir::PrimExpr at = tir::operator+(tir::operator*(out.at(spatial[d]).Value(), C(it, strides[d])),
                                            tir::operator*(tir::PrimExpr(window[d]), C(it, dilation[d])));
          data_coords[spatial[d]] = Layout::Coord::Whole(at);
          weight_coords[spatial[d]] = Layout::Coord::Whole(window[d]);
        }
        return te::Sum(tir::operator*((*padded)(dl->IndexOf(data_coords)), w(kl->IndexOf(weight_coords))), axes);
      },
      primal ? absl::StrCat(op, "_", lower_primal) : absl::StrCat(op, "_", dl->Primal(), "c"), names);
}

namespace {

/*! \brief Where the windows of a convolution lie, as im2col lays them out, so that every row
 *  of the window matrix is a contiguous run of memory (a panel of it is packed with vector
 *  copies, never gathers).
 *
 *  The padded input is split into stride_h x stride_w phases, phase (a, b) holding the pixels
 *  (y * stride_h + a, x * stride_w + b); with unit strides the single phase is the padded input
 *  itself. Column q of the window matrix is output pixel (q / pitch, q % pitch), the pitch
 *  being the phases' width: the window of pixel q at tap (kh, kw) is element
 *  q + (kh * d_h / s_h) * pitch + (kw * d_w / s_w) of phase ((kh * d_h) % s_h, (kw * d_w) % s_w)
 *  taken as a flat array. Columns with q % pitch >= OW are junk, computed and dropped. */
struct WindowGrid {
  int64_t oh, ow;
  bool strided;            // more than one phase, stored apart from the padded input
  int64_t pitch, phase_h;  // each phase is phase_h x pitch
  int64_t columns;
  std::vector<int64_t> padding;  // (top, left, bottom, right), bottom and right grown so the
                                 // phases are whole and every load is in bounds
};

absl::StatusOr<WindowGrid> MakeWindowGrid(const std::vector<int64_t>& xs, const std::vector<int64_t>& kernel_size,
                                          const std::vector<int64_t>& strides, const std::vector<int64_t>& padding,
                                          const std::vector<int64_t>& dilation, int64_t column_tile) {
  if (xs.size() != 4) return absl::InvalidArgumentError("im2col expects NCHW data");
  WindowGrid g;
  int64_t kh = kernel_size[0], kw = kernel_size[1], sh = strides[0], sw = strides[1];
  g.oh = relax::WindowExtent(xs[2], padding[0], padding[2], kh, dilation[0], sh);
  g.ow = relax::WindowExtent(xs[3], padding[1], padding[3], kw, dilation[1], sw);
  if (g.oh <= 0 || g.ow <= 0) return absl::InvalidArgumentError("im2col: the window is larger than the padded input");
  if (column_tile < 1) return absl::InvalidArgumentError("im2col: column_tile must be positive");
  int64_t padded_h = xs[2] + padding[0] + padding[2], padded_w = xs[3] + padding[1] + padding[3];
  g.strided = sh > 1 || sw > 1;
  g.pitch = (padded_w + sw - 1) / sw;
  g.columns = (g.oh * g.pitch + column_tile - 1) / column_tile * column_tile;
  // The phase rows the last column's windows reach (junk columns included).
  int64_t last = (g.columns - 1) + ((kh - 1) * dilation[0] / sh) * g.pitch + (kw - 1) * dilation[1] / sw;
  g.phase_h = std::max(last / g.pitch + 1, (padded_h + sh - 1) / sh);
  g.padding = padding;
  g.padding[2] += g.phase_h * sh - padded_h;
  g.padding[3] += g.pitch * sw - padded_w;
  return g;
}

}  // namespace

absl::StatusOr<Im2colLayout> Im2colLayoutOf(const std::vector<int64_t>& xs, const std::vector<int64_t>& kernel_size,
                                            const std::vector<int64_t>& strides, const std::vector<int64_t>& padding,
                                            const std::vector<int64_t>& dilation, int64_t column_tile) {
  absl::StatusOr<WindowGrid> g = MakeWindowGrid(xs, kernel_size, strides, padding, dilation, column_tile);
  if (!g.ok()) return g.status();
  Im2colLayout layout;
  layout.columns = g->columns;
  layout.copies_input = g->strided;
  for (int64_t p : g->padding) layout.copies_input |= p != 0;
  return layout;
}

absl::StatusOr<Tensor> Im2col(const Tensor& x, const std::vector<int64_t>& kernel_size,
                              const std::vector<int64_t>& strides, const std::vector<int64_t>& padding,
                              const std::vector<int64_t>& dilation, int64_t column_tile) {
  absl::StatusOr<std::vector<int64_t>> xs = KnownExtents(x, {1, 2, 3}, "im2col");
  if (!xs.ok()) return xs.status();
  absl::StatusOr<WindowGrid> g = MakeWindowGrid(*xs, kernel_size, strides, padding, dilation, column_tile);
  if (!g.ok()) return g.status();
  absl::StatusOr<Tensor> padded = PadSpatial(x, g->padding, tir::Const(x.dtype(), 0), *Layout::Parse("NCHW"));
  if (!padded.ok()) return padded.status();
  int64_t kh = kernel_size[0], kw = kernel_size[1], sh = strides[0], sw = strides[1];
  DataType it = IndexType(x);
  using tir::operator*;
  using tir::operator+;
  // The phases, stored once per call: [N, C, s_h, s_w, phase_h, pitch].
  Tensor phases = *padded;
  if (g->strided) {
    phases = te::Compute({x.shape()[0], x.shape()[1], C(it, sh), C(it, sw), C(it, g->phase_h), C(it, g->pitch)},
                         [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
                           return (*padded)({i[0], i[1], tir::PrimExpr(i[4]) * C(it, sh) + i[2],
                                             tir::PrimExpr(i[5]) * C(it, sw) + i[3]});
                         },
                         "stride_phases", {"n", "c", "a", "b", "y", "x"});
  }
  std::vector<tir::PrimExpr> shape = {x.shape()[0], C(it, (*xs)[1] * kh * kw), C(it, g->columns)};
  return te::Compute(
      shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        tir::PrimExpr k = i[1], q = i[2];
        tir::PrimExpr c = tir::FloorDiv(k, C(it, kh * kw));
        tir::PrimExpr ty = tir::FloorMod(tir::FloorDiv(k, C(it, kw)), C(it, kh)) * C(it, dilation[0]);
        tir::PrimExpr tx = tir::FloorMod(k, C(it, kw)) * C(it, dilation[1]);
        tir::PrimExpr flat = q + tir::FloorDiv(ty, C(it, sh)) * C(it, g->pitch) + tir::FloorDiv(tx, C(it, sw));
        tir::PrimExpr y = tir::FloorDiv(flat, C(it, g->pitch)), xx = tir::FloorMod(flat, C(it, g->pitch));
        if (!g->strided) return phases({i[0], c, y, xx});
        return phases({i[0], c, tir::FloorMod(ty, C(it, sh)), tir::FloorMod(tx, C(it, sw)), y, xx});
      },
      "im2col", {"n", "k", "p"});
}

absl::StatusOr<Tensor> Conv2dGemm(const Tensor& x, const Tensor& w2d, const std::vector<int64_t>& kernel_size,
                                  const std::vector<int64_t>& strides, const std::vector<int64_t>& padding,
                                  const std::vector<int64_t>& dilation, int64_t column_tile) {
  absl::StatusOr<std::vector<int64_t>> xs = KnownExtents(x, {1, 2, 3}, "conv2d_gemm");
  if (!xs.ok()) return xs.status();
  absl::StatusOr<std::vector<int64_t>> ws = StaticShape(w2d, "conv2d_gemm");
  if (!ws.ok()) return ws.status();
  absl::StatusOr<WindowGrid> g = MakeWindowGrid(*xs, kernel_size, strides, padding, dilation, column_tile);
  if (!g.ok()) return g.status();
  int64_t k = (*xs)[1] * kernel_size[0] * kernel_size[1];
  if (ws->size() != 2 || (*ws)[1] != k) {
    return absl::InvalidArgumentError(
        absl::StrCat("conv2d_gemm: weight ", relax::ShapeToString(*ws), " is not [O, ", k, "]"));
  }
  absl::StatusOr<Tensor> col = Im2col(x, kernel_size, strides, padding, dilation, column_tile);
  if (!col.ok()) return col.status();
  DataType it = IndexType(x);
  te::ReduceAxis rk = te::MakeReduceAxis(C(it, k), "k");
  const Tensor& windows = *col;
  Tensor gemm = te::Compute({x.shape()[0], w2d.shape()[0], windows.shape()[2]},
                            [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
                              return te::Sum(tir::operator*(w2d({i[1], rk}), windows({i[0], rk, i[2]})), {rk});
                            },
                            "conv2d_gemm", {"n", "o", "p"});
  int64_t pitch = g->pitch;
  return te::Compute(
      {x.shape()[0], w2d.shape()[0], C(it, g->oh), C(it, g->ow)},
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        return gemm(
            {i[0], i[1], tir::operator+(tir::operator*(tir::PrimExpr(i[2]), C(it, pitch)), tir::PrimExpr(i[3]))});
      },
      "conv2d_nchw", {"nn", "ff", "yy", "xx"});
}

absl::StatusOr<Tensor> Pool(const Tensor& x, bool is_max, const std::vector<int64_t>& pool_size,
                            const std::vector<int64_t>& strides, const std::vector<int64_t>& padding,
                            const std::vector<int64_t>& dilation, bool count_include_pad, bool ceil_mode,
                            const std::string& layout) {
  absl::StatusOr<Layout> l = ImageLayout(layout, "pool", static_cast<int>(x.ndim()));
  if (!l.ok()) return l.status();
  const std::string spatial = SpatialAxes(*l);
  const size_t n = spatial.size();
  const std::string op = absl::StrCat("pool", n, "d");
  if (pool_size.size() != n || strides.size() != n || dilation.size() != n || padding.size() != 2 * n) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": pool_size, strides and dilation need ", n, " values, padding ", 2 * n));
  }
  std::vector<int> at;  // the spatial axes' positions in the layout
  for (char a : spatial) at.push_back(l->PositionOf(a));
  absl::StatusOr<std::vector<int64_t>> shape_or = KnownExtents(x, at, op);
  if (!shape_or.ok()) return shape_or.status();
  std::vector<int64_t> in;  // the spatial extents
  for (int p : at) in.push_back((*shape_or)[p]);
  DataType it = IndexType(x);
  std::vector<int64_t> out(n);
  std::vector<int64_t> padded_by = padding;  // plus what ceil mode's last windows reach past the padding
  bool ceil_extra = false;
  for (size_t d = 0; d < n; ++d) {
    out[d] = relax::WindowExtent(in[d], padding[d], padding[d + n], pool_size[d], dilation[d], strides[d], ceil_mode);
    int64_t reach = (out[d] - 1) * strides[d] + dilation[d] * (pool_size[d] - 1) + 1;
    int64_t extra = reach - (in[d] + padding[d] + padding[d + n]);
    if (extra > 0) {
      padded_by[d + n] += extra;
      ceil_extra = true;
    }
  }
  absl::StatusOr<Tensor> padded =
      PadSpatial(x, padded_by, is_max ? tir::MinValue(x.dtype()) : tir::Const(x.dtype(), 0), *l);
  if (!padded.ok()) return padded.status();
  std::vector<te::ReduceAxis> taps_axes;
  std::vector<tir::PrimExpr> shape = x.shape();
  for (size_t d = 0; d < n; ++d) {
    taps_axes.push_back(te::MakeReduceAxis(C(it, pool_size[d]), absl::StrCat("rv", d)));
    shape[at[d]] = C(it, out[d]);
  }
  auto window = [&](const std::vector<tir::Var>& i) {
    std::vector<tir::PrimExpr> index(i.begin(), i.end());
    for (size_t d = 0; d < n; ++d) {
      index[at[d]] = tir::operator+(tir::operator*(tir::PrimExpr(i[at[d]]), C(it, strides[d])),
                                    tir::operator*(tir::PrimExpr(taps_axes[d]), C(it, dilation[d])));
    }
    return (*padded)(index);
  };
  std::vector<std::string> names;
  for (size_t d = 0; d < x.ndim(); ++d) names.push_back(absl::StrCat("ax", d));
  if (is_max) {
    return te::Compute(
        shape, [&](const std::vector<tir::Var>& i) -> te::ComputeValue { return te::Max(window(i), taps_axes); },
        "pool_max", names);
  }
  Tensor sum = te::Compute(
      shape, [&](const std::vector<tir::Var>& i) -> te::ComputeValue { return te::Sum(window(i), taps_axes); },
      "pool_sum", names);
  bool padded_any = std::any_of(padding.begin(), padding.end(), [](int64_t p) { return p != 0; });
  int64_t window_taps = 1;
  for (int64_t k : pool_size) window_taps *= k;
  return te::Compute(
      shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        tir::PrimExpr count;
        if ((count_include_pad || !padded_any) && !ceil_extra) {
          count = tir::Const(x.dtype(), static_cast<double>(window_taps));
        } else {
          // Taps of the window inside [lo_bound, hi_bound): the input, or with count_include_pad
          // the input and its padding (never the extra cells ceil mode adds).
          auto taps = [&](tir::PrimExpr out_index, size_t d) {
            int64_t lo_bound = count_include_pad ? -padding[d] : 0;
            int64_t hi_bound = in[d] + (count_include_pad ? padding[d + n] : 0);
            tir::PrimExpr start = tir::operator-(tir::operator*(out_index, C(it, strides[d])), C(it, padding[d]));
            tir::PrimExpr end = tir::operator+(start, C(it, dilation[d] * (pool_size[d] - 1) + 1));
            tir::PrimExpr lo = tir::Max(start, C(it, lo_bound)), hi = tir::Min(end, C(it, hi_bound));
            auto ceil_div = [&](tir::PrimExpr a) {
              return tir::FloorDiv(tir::operator+(a, C(it, dilation[d] - 1)), C(it, dilation[d]));
            };
            return tir::operator-(ceil_div(tir::operator-(hi, start)), ceil_div(tir::operator-(lo, start)));
          };
          tir::PrimExpr product = taps(i[at[0]], 0);
          for (size_t d = 1; d < n; ++d) product = tir::operator*(product, taps(i[at[d]], d));
          count = tir::Cast(x.dtype(), product);
        }
        return tir::operator/(sum(std::vector<tir::PrimExpr>(i.begin(), i.end())), count);
      },
      "pool_avg", names);
}

absl::StatusOr<Tensor> GlobalAvgPool2d(const Tensor& x, const std::string& layout) {
  absl::StatusOr<Layout> l = ImageLayout(layout, "adaptive_avg_pool2d", static_cast<int>(x.ndim()));
  if (!l.ok()) return l.status();
  const int hp = l->PositionOf('H'), wp = l->PositionOf('W');
  absl::StatusOr<std::vector<int64_t>> xs = KnownExtents(x, {hp, wp}, "adaptive_avg_pool2d");
  if (!xs.ok()) return xs.status();
  DataType it = IndexType(x);
  te::ReduceAxis ry = te::MakeReduceAxis(C(it, (*xs)[hp]), "rv0");
  te::ReduceAxis rx = te::MakeReduceAxis(C(it, (*xs)[wp]), "rv1");
  std::vector<tir::PrimExpr> shape = x.shape();
  shape[hp] = C(it, 1);
  shape[wp] = C(it, 1);
  std::vector<std::string> names;
  for (size_t d = 0; d < x.ndim(); ++d) names.push_back(absl::StrCat("ax", d));
  Tensor sum = te::Compute(
      shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        std::vector<tir::PrimExpr> index(i.begin(), i.end());
        index[hp] = ry;
        index[wp] = rx;
        return te::Sum(x(index), {ry, rx});
      },
      "adaptive_pool_sum", names);
  double cells = static_cast<double>((*xs)[hp] * (*xs)[wp]);
  return te::Compute(
      shape,
      [&](const std::vector<tir::Var>& i) -> te::ComputeValue {
        return tir::operator/(sum(std::vector<tir::PrimExpr>(i.begin(), i.end())), tir::Const(x.dtype(), cells));
      },
      "adaptive_pool_avg", names);
}

}  // namespace topi
}  // namespace mlc
