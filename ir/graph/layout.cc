/*! \file layout.cc */
#include "ir/graph/layout.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "ir/tir/prim_expr_ops.h"

namespace mlc {
namespace {

char Upper(char c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(c))); }

}  // namespace

absl::StatusOr<Layout> Layout::Parse(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat("layout \"", text, "\": ", why));
  };
  if (text.empty()) return bad("empty");
  Layout out;
  out.name_ = text;
  int64_t factor = 0;
  bool has_digits = false;
  for (char c : text) {
    if (std::isdigit(static_cast<unsigned char>(c))) {
      if (factor > (int64_t{1} << 40)) return bad("factor too large");
      factor = factor * 10 + (c - '0');
      has_digits = true;
      continue;
    }
    if (std::isupper(static_cast<unsigned char>(c))) {
      if (has_digits)
        return bad(absl::StrCat("a factor must precede a lower-case sub-axis, not '", std::string(1, c), "'"));
      if (out.PositionOf(c) >= 0) return bad(absl::StrCat("axis ", std::string(1, c), " appears twice"));
      out.axes_.push_back({c, 0});
      continue;
    }
    if (std::islower(static_cast<unsigned char>(c))) {
      if (!has_digits || factor <= 0)
        return bad(absl::StrCat("sub-axis '", std::string(1, c), "' needs a positive factor before it"));
      if (out.PositionOf(Upper(c)) < 0)
        return bad(absl::StrCat("sub-axis '", std::string(1, c), "' comes before its axis ", std::string(1, Upper(c))));
      if (out.PositionOf(c) >= 0) return bad(absl::StrCat("sub-axis '", std::string(1, c), "' appears twice"));
      out.axes_.push_back({c, factor});
      factor = 0;
      has_digits = false;
      continue;
    }
    return bad(absl::StrCat("unexpected character '", std::string(1, c), "'"));
  }
  if (has_digits) return bad("ends with a factor");
  return out;
}

std::string Layout::Primal() const {
  std::string s;
  for (const Axis& a : axes_) {
    if (a.primal()) s += a.name;
  }
  return s;
}

int64_t Layout::Factor(char primal) const {
  int p = PositionOf(static_cast<char>(std::tolower(static_cast<unsigned char>(primal))));
  return p < 0 ? 1 : axes_[p].factor;
}

bool Layout::BlocksOnlyChannels() const {
  return std::all_of(axes_.begin(), axes_.end(),
                     [](const Axis& a) { return a.primal() || a.name == 'c' || a.name == 'i' || a.name == 'o'; });
}

int Layout::PositionOf(char name) const {
  for (size_t i = 0; i < axes_.size(); ++i) {
    if (axes_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

absl::StatusOr<std::vector<tir::PrimExpr>> Layout::ShapeFromPrimal(const std::vector<tir::PrimExpr>& primal) const {
  std::string order = Primal();
  if (primal.size() != order.size()) {
    return absl::InvalidArgumentError(absl::StrCat("layout ", name_, " needs a ", order.size(), "-d tensor (", order,
                                                   "), got ", primal.size(), " dimensions"));
  }
  std::vector<tir::PrimExpr> out;
  for (const Axis& a : axes_) {
    char p = Upper(a.name);
    const tir::PrimExpr& dim = primal[order.find(p)];
    int64_t f = Factor(p);
    if (f == 1) {
      out.push_back(dim);
      continue;
    }
    const int64_t* v = tir::AsConstInt(dim);
    if (v == nullptr || *v % f != 0) {
      return absl::InvalidArgumentError(absl::StrCat("layout ", name_, ": dimension ", std::string(1, p), " (",
                                                     v ? absl::StrCat(*v) : std::string("symbolic"),
                                                     ") is not a multiple of ", f));
    }
    out.push_back(tir::IntImm(dim->dtype, a.primal() ? *v / f : f));
  }
  return out;
}

absl::StatusOr<std::vector<int64_t>> Layout::ShapeFromPrimal(const std::vector<int64_t>& primal) const {
  std::vector<tir::PrimExpr> dims;
  for (int64_t d : primal) dims.push_back(tir::I64(d));
  absl::StatusOr<std::vector<tir::PrimExpr>> out = ShapeFromPrimal(dims);
  if (!out.ok()) return out.status();
  std::vector<int64_t> shape;
  for (const tir::PrimExpr& d : *out) shape.push_back(*tir::AsConstInt(d));
  return shape;
}

std::vector<tir::PrimExpr> Layout::ShapeToPrimal(const std::vector<tir::PrimExpr>& shape) const {
  std::vector<tir::PrimExpr> out;
  for (size_t i = 0; i < axes_.size() && i < shape.size(); ++i) {
    if (!axes_[i].primal()) continue;
    int64_t f = Factor(axes_[i].name);
    const int64_t* v = tir::AsConstInt(shape[i]);
    out.push_back(f == 1 ? shape[i] : (v != nullptr ? tir::IntImm(shape[i]->dtype, *v * f) : shape[i] * f));
  }
  return out;
}

std::vector<int64_t> Layout::ShapeToPrimal(const std::vector<int64_t>& shape) const {
  std::vector<int64_t> out;
  for (size_t i = 0; i < axes_.size() && i < shape.size(); ++i) {
    if (axes_[i].primal()) out.push_back(shape[i] * Factor(axes_[i].name));
  }
  return out;
}

Layout::Coord Layout::Coord::Split(tir::PrimExpr outer, tir::PrimExpr inner, int64_t factor) {
  Coord c;
  c.outer = std::move(outer);
  c.inner = std::move(inner);
  c.factor = factor;
  return c;
}

tir::PrimExpr Layout::Coord::Value() const {
  if (whole.defined()) return whole;
  return outer * factor + inner;
}

std::vector<tir::PrimExpr> Layout::IndexOf(const std::map<char, Coord>& coords) const {
  std::vector<tir::PrimExpr> index;
  for (const Axis& a : axes_) {
    char p = Upper(a.name);
    const Coord& c = coords.at(p);
    int64_t f = Factor(p);
    if (f == 1) {
      index.push_back(c.Value());
    } else if (!c.whole.defined() && c.factor == f) {
      index.push_back(a.primal() ? c.outer : c.inner);  // already split as this layout splits it
    } else {
      tir::PrimExpr v = c.Value();
      index.push_back(a.primal() ? tir::FloorDiv(v, f) : tir::FloorMod(v, f));
    }
  }
  return index;
}

std::map<char, Layout::Coord> Layout::CoordsOf(const std::vector<tir::PrimExpr>& index) const {
  std::map<char, Coord> coords;
  for (size_t i = 0; i < axes_.size() && i < index.size(); ++i) {
    const Axis& a = axes_[i];
    if (!a.primal()) continue;
    int64_t f = Factor(a.name);
    if (f == 1) {
      coords[a.name] = Coord::Whole(index[i]);
    } else {
      coords[a.name] = Coord::Split(index[i], index[PositionOf(static_cast<char>(std::tolower(a.name)))], f);
    }
  }
  return coords;
}

namespace {

// dst[j] = src[base + table[j * step]] for j < n, elements of `elem` bytes; a fixed-size copy
// per width so the compiler turns it into one load and store.
template <size_t kBytes>
void CopyGatheredFixed(char* dst, const char* src, int64_t base, const int64_t* table, int64_t step, int64_t n) {
  for (int64_t j = 0; j < n; ++j) std::memcpy(dst + j * kBytes, src + (base + table[j * step]) * kBytes, kBytes);
}

void CopyGathered(char* dst, const char* src, int64_t base, const int64_t* table, int64_t step, int64_t n,
                  size_t elem) {
  switch (elem) {
    case 1: return CopyGatheredFixed<1>(dst, src, base, table, step, n);
    case 2: return CopyGatheredFixed<2>(dst, src, base, table, step, n);
    case 4: return CopyGatheredFixed<4>(dst, src, base, table, step, n);
    case 8: return CopyGatheredFixed<8>(dst, src, base, table, step, n);
    default:
      for (int64_t j = 0; j < n; ++j) std::memcpy(dst + j * elem, src + (base + table[j * step]) * elem, elem);
  }
}

}  // namespace

absl::StatusOr<TensorData> TransformLayout(const TensorData& data, const Layout& src, const Layout& dst) {
  if (src.Primal() != dst.Primal()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot transform layout ", src.name(), " to ", dst.name(), ": their primal layouts differ"));
  }
  if (data.shape().size() != src.ndim()) {
    return absl::InvalidArgumentError(
        absl::StrCat("a ", data.shape().size(), "-d tensor is not in layout ", src.name()));
  }
  std::vector<int64_t> primal = src.ShapeToPrimal(data.shape());
  absl::StatusOr<std::vector<int64_t>> back = src.ShapeFromPrimal(primal);
  if (!back.ok() || *back != data.shape()) {
    return absl::InvalidArgumentError(absl::StrCat("shape does not fit layout ", src.name()));
  }
  absl::StatusOr<std::vector<int64_t>> dst_shape = dst.ShapeFromPrimal(primal);
  if (!dst_shape.ok()) return dst_shape.status();
  TensorData out(data.dtype(), *dst_shape);
  const size_t elem = static_cast<size_t>(data.dtype().bytes());
  const std::string order = src.Primal();
  const size_t rank = order.size();
  // Per primal axis: its source factor and the strides of its outer and inner source parts.
  std::vector<int64_t> src_stride(src.ndim(), 1);
  for (size_t i = src.ndim(); i-- > 1;) src_stride[i - 1] = src_stride[i] * data.shape()[i];
  std::vector<int64_t> factor(rank), outer_stride(rank), inner_stride(rank, 0);
  for (size_t p = 0; p < rank; ++p) {
    factor[p] = src.Factor(order[p]);
    outer_stride[p] = src_stride[src.PositionOf(order[p])];
    if (factor[p] > 1) inner_stride[p] = src_stride[src.PositionOf(static_cast<char>(std::tolower(order[p])))];
  }
  // Per destination axis: which primal axis it is part of, and its weight in that coordinate.
  const std::vector<int64_t>& ds = *dst_shape;
  const size_t nd = dst.ndim();
  std::vector<size_t> axis_primal(nd);
  std::vector<int64_t> axis_weight(nd);
  std::vector<int64_t> coord_limit(rank, 1);  // one past the largest coordinate per primal axis
  for (size_t i = 0; i < nd; ++i) {
    const Layout::Axis& a = dst.axes()[i];
    axis_primal[i] = order.find(Upper(a.name));
    axis_weight[i] = a.primal() ? dst.Factor(a.name) : 1;
    coord_limit[axis_primal[i]] += (ds[i] - 1) * axis_weight[i];
  }
  // The source offset is a sum over primal axes of a function of that axis' coordinate, so one
  // table per axis replaces the divisions an element would otherwise take (packing weights runs
  // at memory speed: issue 37).
  std::vector<std::vector<int64_t>> offset_of(rank);
  for (size_t p = 0; p < rank; ++p) {
    offset_of[p].resize(static_cast<size_t>(coord_limit[p]));
    for (int64_t c = 0; c < coord_limit[p]; ++c) {
      offset_of[p][c] = c / factor[p] * outer_stride[p] + c % factor[p] * inner_stride[p];
    }
  }
  const int64_t total = out.NumElements();
  if (total == 0) return out;
  if (nd == 0) {
    std::memcpy(out.mutable_data(), data.data(), elem);
    return out;
  }
  const char* in = static_cast<const char*>(data.data());
  char* o = static_cast<char*>(out.mutable_data());
  // Walk the destination in order: an odometer over all axes but the last keeps each primal
  // coordinate current; the last axis runs as a tight loop over one table.
  const size_t last = nd - 1;
  const int64_t* last_table = offset_of[axis_primal[last]].data();
  const int64_t last_weight = axis_weight[last], last_extent = ds[last];
  std::vector<int64_t> idx(nd, 0), coord(rank, 0);
  for (int64_t n = 0; n < total; n += last_extent) {
    int64_t base = 0;
    for (size_t p = 0; p < rank; ++p) {
      if (p != axis_primal[last]) base += offset_of[p][coord[p]];
    }
    const int64_t c0 = coord[axis_primal[last]];
    CopyGathered(o + n * elem, in, base, last_table + c0, last_weight, last_extent, elem);
    for (size_t i = last; i-- > 0;) {
      coord[axis_primal[i]] += axis_weight[i];
      if (++idx[i] < ds[i]) break;
      coord[axis_primal[i]] -= ds[i] * axis_weight[i];
      idx[i] = 0;
    }
  }
  return out;
}

}  // namespace mlc
