/*! \file fx_indexing_converters.cc
 *  \brief operator.getitem: an element of a tuple a converter returned, a size of a shape
 *         (x.shape[1]), and basic indexing of tensors (x[..., None], x[:, :, None],
 *         x[..., h:], x[0]) as a strided slice and a reshape; split / chunk into slices,
 *         index_select as take.
 */
#include <algorithm>
#include <limits>

#include "absl/strings/str_cat.h"
#include "frontend/torch/fx_converter_util.h"
#include "ir/graph/shape_util.h"
#include "ir/ops/op_attrs.h"
#include "ir/tir/prim_expr_ops.h"

namespace mlc {
namespace fx {
namespace {

/*! \brief A slice bound: none gives `absent`; else a constant number or size. */
absl::StatusOr<int64_t> SliceBound(FxContext& ctx, const proto::FxArg& arg, int64_t absent) {
  if (arg.value_case() == proto::FxArg::kNone || arg.value_case() == proto::FxArg::VALUE_NOT_SET) return absent;
  absl::StatusOr<tir::PrimExpr> d = DimArg(ctx, arg);
  if (!d.ok()) return d.status();
  const int64_t* v = tir::AsConstInt(*d);
  if (v == nullptr)
    return absl::UnimplementedError("a slice bound must be a constant (a symbolic bound is not supported)");
  return *v;
}

/*! \brief x[index]: `index` is one item or a tuple of them; an item is an integer (drops its
 *  axis), a slice start:stop:step (step > 0), None (a new axis of 1) or `...` (the axes no other
 *  item names). Sliced axes must be static; axes taken whole may be symbolic. */
absl::StatusOr<relax::Expr> IndexTensor(FxContext& ctx, const relax::Expr& x, const proto::FxArg& index) {
  const auto* t = x->struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || !t->HasKnownShape()) return absl::InvalidArgumentError("indexing needs a tensor of known shape");
  std::vector<proto::FxArg> items;
  if (index.value_case() == proto::FxArg::kList) {
    items.assign(index.list().items().begin(), index.list().items().end());
  } else {
    items.push_back(index);
  }
  const std::vector<tir::PrimExpr> dims = t->Dims();
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t named = 0, ellipses = 0;
  for (const proto::FxArg& item : items) {
    if (item.value_case() == proto::FxArg::kEllipsis) {
      ++ellipses;
    } else if (item.value_case() != proto::FxArg::kNone) {
      ++named;
    }
  }
  if (ellipses > 1) return absl::InvalidArgumentError("an index may hold one '...' only");
  if (named > rank)
    return absl::InvalidArgumentError(absl::StrCat("too many indices (", named, ") for a tensor of rank ", rank));
  relax::StridedSliceAttrs slice;
  std::vector<tir::PrimExpr> out;
  int64_t axis = 0;
  for (const proto::FxArg& item : items) {
    switch (item.value_case()) {
      case proto::FxArg::kNone: out.push_back(tir::I64(1)); break;
      case proto::FxArg::kEllipsis:
        for (int64_t k = 0; k < rank - named; ++k) out.push_back(dims[axis++]);
        break;
      case proto::FxArg::kSlice: {
        absl::StatusOr<int64_t> start = SliceBound(ctx, item.slice().start(), 0);
        absl::StatusOr<int64_t> stop = SliceBound(ctx, item.slice().stop(), std::numeric_limits<int64_t>::max());
        absl::StatusOr<int64_t> step = SliceBound(ctx, item.slice().step(), 1);
        for (const auto* s : {&start, &stop, &step}) {
          if (!s->ok()) return s->status();
        }
        if (*step <= 0) return absl::UnimplementedError("a slice step must be positive");
        if (*start == 0 && *stop == std::numeric_limits<int64_t>::max() && *step == 1) {  // `:`
          out.push_back(dims[axis++]);
          break;
        }
        const int64_t* n = tir::AsConstInt(dims[axis]);
        if (n == nullptr) return absl::UnimplementedError(absl::StrCat("slicing axis ", axis, ", which is symbolic"));
        slice.axes.push_back(axis);
        slice.begin.push_back(*start);
        slice.end.push_back(*stop);
        slice.strides.push_back(*step);
        out.push_back(tir::I64(relax::ClampSlice(*n, *start, *stop, *step).extent));
        ++axis;
        break;
      }
      default: {  // an integer (a literal or a size) selects one element of its axis
        absl::StatusOr<tir::PrimExpr> i = DimArg(ctx, item);
        if (!i.ok())
          return absl::UnimplementedError(
              "tensor indices (advanced indexing) are not supported; index with integers, slices, None and ...");
        const int64_t* v = tir::AsConstInt(*i);
        const int64_t* n = tir::AsConstInt(dims[axis]);
        if (v == nullptr || n == nullptr)
          return absl::UnimplementedError("indexing needs a constant index into a static axis");
        const int64_t at = *v < 0 ? *v + *n : *v;
        if (at < 0 || at >= *n)
          return absl::InvalidArgumentError(
              absl::StrCat("index ", *v, " out of range for axis ", axis, " of size ", *n));
        slice.axes.push_back(axis);
        slice.begin.push_back(at);
        slice.end.push_back(at + 1);
        slice.strides.push_back(1);
        ++axis;
      }
    }
  }
  while (axis < rank) out.push_back(dims[axis++]);
  relax::Expr y = x;
  if (!slice.axes.empty()) {
    absl::StatusOr<relax::Expr> sliced = ctx.EmitOp("strided_slice", {x}, relax::ToAttrs(slice));
    if (!sliced.ok()) return sliced;
    y = *sliced;
  }
  // New axes of 1 in, selected axes out: the same elements in another shape.
  const auto* ys = y->struct_info().as<relax::TensorStructInfoNode>();
  std::vector<tir::PrimExpr> have = ys->Dims();
  bool same = have.size() == out.size();
  for (size_t d = 0; same && d < out.size(); ++d) same = relax::DimsEqual(have[d], out[d]);
  if (same) return y;
  return ctx.EmitOp("reshape", {y}, {}, {relax::TensorSInfoOfDims(out, ys->dtype)});
}

/*! \brief operator.getitem on a tuple (MultiheadAttention's (output,)), on a shape (x.shape[0])
 *  or on a tensor. */
absl::StatusOr<relax::Expr> ConvertGetItem(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  if (node.args_size() < 2) return absl::InvalidArgumentError("getitem needs an index");
  const proto::FxArg& index = node.args(1);
  const auto* tuple = x->as<relax::TupleNode>();
  const auto* shape = x->as<relax::ShapeExprNode>();
  if (tuple == nullptr && shape == nullptr) return IndexTensor(ctx, *x, index);
  if (index.value_case() != proto::FxArg::kI)
    return absl::UnimplementedError("a tuple or a shape is indexed with one integer");
  const int64_t n = static_cast<int64_t>(tuple ? tuple->fields.size() : shape->values.size());
  int64_t i = index.i();
  if (i < 0) i += n;
  if (i < 0 || i >= n)
    return absl::InvalidArgumentError(absl::StrCat("index ", index.i(), " out of range for ", n, " elements"));
  return tuple ? tuple->fields[i] : DimValue(shape->values[i]);
}

/*! \brief x.split(size or sizes, dim) / torch.split and x.chunk(n, dim) / torch.chunk: the
 *  parts (slices of a static axis) as a tuple, for getitem or unpacking. As torch: a size
 *  leaves a shorter last part, and chunk makes ceil(length / n)-long parts. */
FxConverter ConvertSplit(bool chunk) {
  return [chunk](FxContext& ctx, const proto::FxNode& node) -> absl::StatusOr<relax::Expr> {
    absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
    if (!x.ok()) return x.status();
    const auto* t = (*x)->struct_info().as<relax::TensorStructInfoNode>();
    if (t == nullptr || !t->HasKnownShape()) return absl::InvalidArgumentError("needs an input of known shape");
    const std::vector<tir::PrimExpr> dims = t->Dims();
    const int64_t rank = static_cast<int64_t>(dims.size());
    int64_t axis = IntArg(node, 2, "dim", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return absl::InvalidArgumentError(absl::StrCat("dim ", axis, " out of range"));
    const int64_t* length = tir::AsConstInt(dims[axis]);
    if (length == nullptr) return absl::UnimplementedError("splitting a symbolic axis");
    std::vector<int64_t> sizes;
    const proto::FxArg* how = node.args_size() > 1 ? &node.args(1) : nullptr;
    if (how == nullptr) {
      auto it = node.kwargs().find(chunk ? "chunks" : "split_size_or_sections");
      if (it == node.kwargs().end()) it = node.kwargs().find("split_size");
      if (it != node.kwargs().end()) how = &it->second;
    }
    if (how == nullptr) return absl::InvalidArgumentError(chunk ? "chunk needs a count" : "split needs sizes");
    if (how->value_case() == proto::FxArg::kList) {
      for (const proto::FxArg& item : how->list().items()) sizes.push_back(item.i());
    } else if (how->value_case() == proto::FxArg::kI && how->i() > 0) {
      const int64_t each = chunk ? (*length + how->i() - 1) / how->i() : how->i();
      for (int64_t at = 0; at < *length; at += each) sizes.push_back(std::min(each, *length - at));
    } else {
      return absl::InvalidArgumentError("the sizes must be a positive integer or a list of them");
    }
    std::vector<relax::Expr> parts;
    int64_t begin = 0;
    for (int64_t size : sizes) {
      relax::StridedSliceAttrs attrs{{axis}, {begin}, {begin + size}, {1}};
      absl::StatusOr<relax::Expr> part = ctx.EmitOp("strided_slice", {*x}, relax::ToAttrs(attrs));
      if (!part.ok()) return part.status();
      parts.push_back(*part);
      begin += size;
    }
    if (begin != *length)
      return absl::InvalidArgumentError(absl::StrCat("the sizes add up to ", begin, ", not ", *length));
    return relax::MakeTuple(parts);
  };
}

/*! \brief torch.index_select(x, dim, index) / x.index_select(dim, index): the entries of x along
 *  dim that the integer tensor index names. */
absl::StatusOr<relax::Expr> ConvertIndexSelect(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> index = ctx.Arg(node, 2, "index");
  if (!index.ok()) return index.status();
  if (!DtypeOf(*index).is_int()) return absl::InvalidArgumentError("the index must be an integer tensor");
  int64_t axis = IntArg(node, 1, "dim", 0), rank = RankOf(*x);
  if (axis < 0 && rank > 0) axis += rank;
  return ctx.EmitOp("take", {*x, *index}, {{"axis", axis}});
}

}  // namespace

void RegisterIndexingFxConverters(FxConverterRegistry& r) {
  using K = FxConverterRegistry;
  r.Register(K::kFunction, "operator.getitem", ConvertGetItem);
  r.Register(K::kFunction, "torch.split", ConvertSplit(/*chunk=*/false));
  r.Register(K::kMethod, "split", ConvertSplit(/*chunk=*/false));
  r.Register(K::kFunction, "torch.chunk", ConvertSplit(/*chunk=*/true));
  r.Register(K::kMethod, "chunk", ConvertSplit(/*chunk=*/true));
  r.Register(K::kFunction, "torch.index_select", ConvertIndexSelect);
  r.Register(K::kMethod, "index_select", ConvertIndexSelect);
}

}  // namespace fx
}  // namespace mlc
