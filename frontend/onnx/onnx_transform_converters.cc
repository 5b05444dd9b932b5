/*! \file onnx_transform_converters.cc
 *  \brief Converters of ONNX's data-movement and shape operators: Shape, Size, ConstantOfShape,
 *         Concat, Gather, Unsqueeze, Squeeze, Split, Expand, Where, Cast. With constant inputs
 *         the operators they emit are evaluated at import (OnnxContext::EmitOp), so shape
 *         subgraphs become constants that later converters read.
 */
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "frontend/onnx/converter_util.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"

namespace mlc {
namespace onnx_import {
namespace {

/*! \brief Integer values of a constant input, or of the attribute `attr` (older opsets). */
absl::StatusOr<std::vector<int64_t>> IntsInputOrAttr(const OnnxContext& ctx, const onnx::NodeProto& node, int i,
                                                     const std::string& attr) {
  if (!ctx.HasInput(node, i)) return ctx.IntsAttr(node, attr);
  return ctx.ConstantInts(node, i, attr);
}

/*! \brief Shape(x)[start:end]: a constant, from the static shape. */
Outputs Shape(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> shape = StaticShape(*x, "the input");
  if (!shape.ok()) return shape.status();
  int64_t rank = static_cast<int64_t>(shape->size());
  auto clamp = [rank](int64_t a) { return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank); };
  int64_t start = clamp(ctx.IntAttr(node, "start", 0)), end = clamp(ctx.IntAttr(node, "end", rank));
  return One(relax::MakeConstant(
      Int64Tensor(std::vector<int64_t>(shape->begin() + start, shape->begin() + std::max(start, end)))));
}

Outputs Size(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> shape = StaticShape(*x, "the input");
  if (!shape.ok()) return shape.status();
  return One(Scalar(static_cast<double>(NumElements(*shape)), DataType::Int64()));
}

/*! \brief A constant of the given shape filled with `value` (float32 0 by default); a large one
 *  is broadcast at run time instead of stored (a few bytes of ONNX can ask for terabytes). */
constexpr int64_t kMaxStoredFill = int64_t{1} << 20;  // elements; fold-constant's default too

Outputs ConstantOfShape(OnnxContext& ctx, const onnx::NodeProto& node) {
  TensorData fill = ScalarTensor(0.0, DataType::Float32());
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.name() != "value") continue;
    absl::StatusOr<TensorData> v = TensorFromOnnx(a.t());
    if (!v.ok()) return v.status();
    if (v->NumElements() != 1) return absl::InvalidArgumentError("value must hold one element");
    fill = *v;
  }
  if (ctx.IsSymbolicShapeValue(node, 0)) {  // (batch, seq): broadcast when it runs
    relax::StructInfo target = relax::TensorSInfoOfDims(ctx.ShapeValueInput(node, 0)->elements, fill.dtype());
    return One(
        ctx.EmitOp("broadcast_to", {relax::MakeConstant(TensorData(fill.dtype(), {}, fill.bytes()))}, {}, {target}));
  }
  if (ctx.ConstantInput(node, 0) == nullptr && !ctx.IsSymbolicShapeValue(node, 0)) {
    // A shape computed from data when the model runs: mlc.full allocates the result, each of its
    // sizes a new shape variable.
    absl::StatusOr<relax::Expr> shape = ctx.Input(node, 0);
    if (!shape.ok()) return shape.status();
    const relax::TensorStructInfoNode* t = TensorOf(*shape);
    const std::vector<tir::PrimExpr> length =
        t != nullptr && t->HasKnownShape() && t->ndim == 1 ? t->Dims() : std::vector<tir::PrimExpr>{};
    const int64_t* rank = length.empty() ? nullptr : tir::AsConstInt(length[0]);
    if (rank == nullptr || t->dtype != DataType::Int64())
      return absl::InvalidArgumentError("the shape must be an int64 vector of a known length");
    return CallAllocating(ctx, "mlc.full", {relax::MakeConstant(TensorData(fill.dtype(), {}, fill.bytes())), *shape},
                          {{fill.dtype(), OutputDimVars(node, *rank)}});
  }
  absl::StatusOr<std::vector<int64_t>> shape = ctx.ConstantInts(node, 0, "the shape");
  if (!shape.ok()) return shape.status();
  for (int64_t d : *shape) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat("the shape has a negative dimension ", d));
  }
  if (NumElements(*shape) > kMaxStoredFill) {
    return One(ctx.EmitOp("broadcast_to", {relax::MakeConstant(TensorData(fill.dtype(), {}, fill.bytes()))},
                          {{"shape", *shape}}));
  }
  TensorData out(fill.dtype(), *shape);
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    std::memcpy(static_cast<char*>(out.mutable_data()) + i * fill.dtype().bytes(), fill.data(), fill.dtype().bytes());
  }
  return One(relax::MakeConstant(out));
}

Outputs Concat(OnnxContext& ctx, const onnx::NodeProto& node) {
  std::vector<relax::Expr> xs;
  for (int i = 0; i < node.input_size(); ++i) {
    absl::StatusOr<relax::Expr> x = ctx.Input(node, i);
    if (!x.ok()) return x.status();
    xs.push_back(*x);
  }
  return One(ctx.EmitOp("concat", xs, {{"axis", ctx.IntAttr(node, "axis", 0)}}));
}

Outputs Gather(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> idx = ctx.Input(node, 1);
  if (!idx.ok()) return idx.status();
  return One(ctx.EmitOp("take", {*x, *idx}, {{"axis", ctx.IntAttr(node, "axis", 0)}}));
}

Outputs GatherElements(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> idx = ctx.Input(node, 1);
  if (!idx.ok()) return idx.status();
  return One(ctx.EmitOp("take_along_axis", {*x, *idx}, {{"axis", ctx.IntAttr(node, "axis", 0)}}));
}

/*! \brief Unsqueeze / Squeeze: a reshape to the result shape (symbolic dimensions kept). */
OnnxConverter ChangeRank(bool unsqueeze) {
  return [unsqueeze](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
    if (!x.ok()) return x.status();
    const relax::TensorStructInfoNode* t = TensorOf(*x);
    if (t == nullptr || !t->HasKnownShape()) return absl::InvalidArgumentError("the input needs a known shape");
    std::vector<tir::PrimExpr> xs = t->Dims();
    absl::StatusOr<std::vector<int64_t>> axes = IntsInputOrAttr(ctx, node, 1, "axes");
    if (!axes.ok()) return axes.status();
    int64_t rank = static_cast<int64_t>(xs.size());
    auto is_one = [](const tir::PrimExpr& d) {
      const int64_t* v = tir::AsConstInt(d);
      return v != nullptr && *v == 1;
    };
    std::vector<tir::PrimExpr> shape;
    if (unsqueeze) {
      int64_t out_rank = rank + static_cast<int64_t>(axes->size());
      std::vector<bool> added(out_rank, false);
      for (int64_t a : *axes) {
        if (a < 0) a += out_rank;
        if (a < 0 || a >= out_rank) return absl::InvalidArgumentError("axes out of range");
        added[a] = true;
      }
      for (int64_t d = 0, next = 0; d < out_rank; ++d) shape.push_back(added[d] ? tir::I64(1) : xs[next++]);
    } else {
      std::vector<bool> removed(rank, axes->empty());
      for (int64_t a : *axes) {
        if (a < 0) a += rank;
        if (a < 0 || a >= rank || !is_one(xs[a]))
          return absl::InvalidArgumentError("Squeeze axes must name dimensions of size 1");
        removed[a] = true;
      }
      for (int64_t d = 0; d < rank; ++d) {
        if (!(removed[d] && is_one(xs[d]))) shape.push_back(xs[d]);
      }
    }
    return ReshapeToDims(ctx, *x, shape);
  };
}

/*! \brief Split into strided slices: sizes from `split` (input or attribute) or equal parts. */
}  // namespace

absl::StatusOr<std::vector<relax::Expr>> SplitAlong(OnnxContext& ctx, const relax::Expr& x, int64_t axis,
                                                    const std::vector<int64_t>& sizes, int64_t length) {
  std::vector<relax::Expr> pieces;
  int64_t begin = 0;
  for (int64_t size : sizes) {
    absl::StatusOr<relax::Expr> y = ctx.EmitOp("strided_slice", {x},
                                               {{"axes", std::vector<int64_t>{axis}},
                                                {"begin", std::vector<int64_t>{begin}},
                                                {"end", std::vector<int64_t>{begin + size}}});
    if (!y.ok()) return y.status();
    pieces.push_back(*y);
    begin += size;
  }
  if (begin != length)
    return absl::InvalidArgumentError(absl::StrCat("split sizes add up to ", begin, ", not ", length));
  return pieces;
}

namespace {

Outputs Split(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  const relax::TensorStructInfoNode* t = TensorOf(*x);
  if (t == nullptr || !t->HasKnownShape())
    return absl::UnimplementedError("Split needs an input of known rank and shape");
  int64_t rank = t->ndim, axis = ctx.IntAttr(node, "axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return absl::InvalidArgumentError("axis out of range");
  absl::StatusOr<std::vector<int64_t>> sizes = IntsInputOrAttr(ctx, node, 1, "split");
  if (!sizes.ok()) return sizes.status();
  // The other axes may be symbolic (detections after NMS split into box coordinates); the split
  // axis needs a static length to divide or to check the sizes against.
  const std::vector<tir::PrimExpr> dims = t->Dims();
  const int64_t* static_dim = tir::AsConstInt(dims[axis]);
  if (static_dim == nullptr) {
    return absl::UnimplementedError(
        absl::StrCat("Split along axis ", axis, " of an input of symbolic shape ", relax::DimsToString(dims)));
  }
  int64_t parts = node.output_size(), dim = *static_dim;
  if (sizes->empty()) {
    if (dim % parts != 0)
      return absl::InvalidArgumentError(absl::StrCat("dimension ", dim, " does not split into ", parts));
    sizes->assign(parts, dim / parts);
  }
  if (static_cast<int64_t>(sizes->size()) != parts)
    return absl::InvalidArgumentError("split sizes and outputs differ in number");
  return SplitAlong(ctx, *x, axis, *sizes, dim);
}

Outputs Expand(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  const relax::TensorStructInfoNode* t = TensorOf(*x);
  if (t == nullptr || !t->HasKnownShape()) return absl::UnimplementedError("Expand needs an input of known shape");
  std::vector<tir::PrimExpr> b;
  if (ctx.IsSymbolicShapeValue(node, 1)) {
    b = ctx.ShapeValueInput(node, 1)->elements;
  } else {
    absl::StatusOr<std::vector<int64_t>> shape = IntsInputOrAttr(ctx, node, 1, "shape");
    if (!shape.ok()) return shape.status();
    for (int64_t v : *shape) b.push_back(tir::I64(v));
  }
  // ONNX Expand broadcasts both ways: a 1 in `shape` keeps the input's dimension.
  std::vector<tir::PrimExpr> a = t->Dims();
  while (a.size() < b.size()) a.insert(a.begin(), tir::I64(1));
  while (b.size() < a.size()) b.insert(b.begin(), tir::I64(1));
  std::vector<tir::PrimExpr> out;
  bool symbolic = false;
  for (size_t d = 0; d < a.size(); ++d) {
    const int64_t* ca = tir::AsConstInt(a[d]);
    const int64_t* cb = tir::AsConstInt(b[d]);
    if (cb != nullptr && *cb == 1) {
      out.push_back(a[d]);
    } else if ((ca != nullptr && *ca == 1) || relax::DimsEqual(a[d], b[d]) || ca == nullptr || cb == nullptr) {
      out.push_back(b[d]);  // an undecidable pair takes the target's: broadcast_to checks it
    } else {
      return absl::InvalidArgumentError(absl::StrCat("shapes ", relax::DimsToString(t->Dims()), " and ",
                                                     relax::DimsToString(b), " do not broadcast"));
    }
    symbolic = symbolic || tir::AsConstInt(out.back()) == nullptr;
  }
  if (symbolic) return One(ctx.EmitOp("broadcast_to", {*x}, {}, {relax::TensorSInfoOfDims(out, t->dtype)}));
  std::vector<int64_t> shape;
  for (const tir::PrimExpr& d : out) shape.push_back(*tir::AsConstInt(d));
  return One(ctx.EmitOp("broadcast_to", {*x}, {{"shape", shape}}));
}

Outputs Where(OnnxContext& ctx, const onnx::NodeProto& node) {
  std::vector<relax::Expr> in;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<relax::Expr> v = ctx.Input(node, i);
    if (!v.ok()) return v.status();
    in.push_back(*v);
  }
  return One(ctx.EmitOp("where", in));
}

Outputs Cast(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<DataType> to = DtypeFromOnnx(static_cast<int32_t>(ctx.IntAttr(node, "to", 0)));
  if (!to.ok()) return to.status();
  // A cast to the type the tensor has is the tensor (exporters write them: bool masks cast to
  // bool), not a copy kernel per use.
  if (const auto* t = TensorOf(*x); t != nullptr && t->dtype == *to) return One(*x);
  return One(ctx.EmitOp("astype", {*x}, {{"dtype", *to}}));
}

/*! \brief Element i of a float32/float64/int32/int64 constant, as a double. */
double ElementAsDouble(const TensorData& t, int64_t i) {
  if (t.dtype() == DataType::Float32()) return t.data_as<float>()[i];
  if (t.dtype() == DataType::Float(64)) return t.data_as<double>()[i];
  if (t.dtype() == DataType::Int(32)) return t.data_as<int32_t>()[i];
  return static_cast<double>(t.data_as<int64_t>()[i]);
}

/*! \brief Writes `value` (as the tensor's dtype) into element i of a fresh tensor. */
void SetElement(TensorData* t, int64_t i, double value) {
  TensorData v = ScalarTensor(value, t->dtype());
  std::memcpy(static_cast<char*>(t->mutable_data()) + i * t->dtype().bytes(), v.data(), t->dtype().bytes());
}

/*! \brief Tile: x (d0, d1, ...) seen as (1, d0, 1, d1, ...), broadcast to (r0, d0, r1, d1, ...)
 *  and merged back to (r0 * d0, r1 * d1, ...). */
Outputs Tile(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> xs = StaticShape(*x, "Tile's input");
  if (!xs.ok()) return xs.status();
  absl::StatusOr<std::vector<int64_t>> repeats = ctx.ConstantInts(node, 1, "repeats");
  if (!repeats.ok()) return repeats.status();
  if (repeats->size() != xs->size()) return absl::InvalidArgumentError("repeats needs one value per dimension");
  std::vector<int64_t> spread, tiled, out;
  for (size_t d = 0; d < xs->size(); ++d) {
    if ((*repeats)[d] < 0) return absl::InvalidArgumentError("repeats must not be negative");
    spread.insert(spread.end(), {1, (*xs)[d]});
    tiled.insert(tiled.end(), {(*repeats)[d], (*xs)[d]});
    out.push_back((*repeats)[d] * (*xs)[d]);
  }
  absl::StatusOr<relax::Expr> r = ctx.EmitOp("reshape", {*x}, {{"shape", spread}});
  if (!r.ok()) return r.status();
  absl::StatusOr<relax::Expr> b = ctx.EmitOp("broadcast_to", {*r}, {{"shape", tiled}});
  if (!b.ok()) return b.status();
  return One(ctx.EmitOp("reshape", {*b}, {{"shape", out}}));
}

/*! \brief OneHot(indices, depth, values = [off, on]): `on` where the position along the new
 *  axis equals the index (negative ones count from depth), `off` elsewhere. */
Outputs OneHot(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> indices = ctx.Input(node, 0);
  if (!indices.ok()) return indices.status();
  absl::StatusOr<std::vector<int64_t>> is = StaticShape(*indices, "OneHot's indices");
  if (!is.ok()) return is.status();
  const TensorData* depth_t = ctx.ConstantInput(node, 1);
  if (depth_t == nullptr || depth_t->NumElements() != 1)
    return absl::UnimplementedError("depth must be a constant of one value");
  absl::StatusOr<relax::Expr> values = ctx.Input(node, 2);  // [off, on], a constant or computed
  if (!values.ok()) return values.status();
  absl::StatusOr<std::vector<int64_t>> vs = StaticShape(*values, "OneHot's values");
  if (!vs.ok()) return vs.status();
  if (vs->size() != 1 || (*vs)[0] != 2) return absl::InvalidArgumentError("values must hold two elements, [off, on]");
  const int64_t depth = static_cast<int64_t>(ElementAsDouble(*depth_t, 0));
  if (depth <= 0) return absl::InvalidArgumentError("depth must be positive");
  const int64_t rank = static_cast<int64_t>(is->size()) + 1;
  int64_t axis = ctx.IntAttr(node, "axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return absl::InvalidArgumentError("axis out of range");
  DataType it = TensorOf(*indices)->dtype;
  absl::StatusOr<relax::Expr> negative = ctx.EmitOp("less", {*indices, Scalar(0, it)});
  if (!negative.ok()) return negative.status();
  absl::StatusOr<relax::Expr> wrapped_up = ctx.EmitOp("add", {*indices, Scalar(static_cast<double>(depth), it)});
  if (!wrapped_up.ok()) return wrapped_up.status();
  absl::StatusOr<relax::Expr> wrapped = ctx.EmitOp("where", {*negative, *wrapped_up, *indices});
  if (!wrapped.ok()) return wrapped.status();
  std::vector<int64_t> with_axis = *is;
  with_axis.insert(with_axis.begin() + axis, 1);
  absl::StatusOr<relax::Expr> column = ctx.EmitOp("reshape", {*wrapped}, {{"shape", with_axis}});
  if (!column.ok()) return column.status();
  std::vector<int64_t> positions_shape(rank, 1);
  positions_shape[axis] = depth;
  TensorData positions(it, positions_shape);
  for (int64_t k = 0; k < depth; ++k) SetElement(&positions, k, static_cast<double>(k));
  absl::StatusOr<relax::Expr> hit = ctx.EmitOp("equal", {*column, relax::MakeConstant(positions)});
  if (!hit.ok()) return hit.status();
  Composer c(ctx, *values);
  auto element = [&](int64_t k) { return c.Reshape(c.Slice(*values, 0, k, k + 1), {}); };
  return c.Result(c.Op("where", {*hit, element(1), element(0)}));
}

/*! \brief Range: of constants, the values, made at import; of integer sizes (a decoder's
 *  positions 0..seq-1 or past..past+seq-1, a stride taken from a shape), an arange whose length
 *  is a shape expression (SizeRange); of tensors whose values come at run time, a call of
 *  mlc.range, its length a new shape variable. */
Outputs Range(OnnxContext& ctx, const onnx::NodeProto& node) {
  const TensorData* in[3] = {ctx.ConstantInput(node, 0), ctx.ConstantInput(node, 1), ctx.ConstantInput(node, 2)};
  for (int i = 0; i < 3; ++i) {
    if (in[i] != nullptr && in[i]->NumElements() != 1)
      return absl::InvalidArgumentError(absl::StrCat("input ", i, " must be a scalar"));
  }
  if (in[0] != nullptr && in[1] != nullptr && in[2] != nullptr) {
    const double start = ElementAsDouble(*in[0], 0), limit = ElementAsDouble(*in[1], 0),
                 delta = ElementAsDouble(*in[2], 0);
    if (delta == 0) return absl::InvalidArgumentError("delta must not be 0");
    const int64_t n = relax::ArangeLength(start, limit, delta);
    if (n > (int64_t{1} << 24)) return absl::InvalidArgumentError(absl::StrCat("Range of ", n, " elements"));
    TensorData out(in[0]->dtype(), {n});
    for (int64_t i = 0; i < n; ++i) SetElement(&out, i, start + static_cast<double>(i) * delta);
    return One(relax::MakeConstant(out));
  }
  std::optional<ShapeValue> sizes[3];
  bool all_sizes = true;
  DataType dtype = DataType::Int64();
  for (int i = 0; i < 3; ++i) {
    sizes[i] = ctx.ShapeValueInput(node, i);
    all_sizes = all_sizes && sizes[i] && sizes[i]->elements.size() == 1;
    if (in[i] != nullptr) dtype = in[i]->dtype();
  }
  if (all_sizes) return One(ctx.SizeRange(sizes[0]->elements[0], sizes[1]->elements[0], sizes[2]->elements[0], dtype));
  // Values known only when the program runs (a window's length given as an input): the length
  // is theirs to decide, so a runtime function makes the range.
  std::vector<relax::Expr> args;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<relax::Expr> v = ctx.Input(node, i);
    if (!v.ok()) return v.status();
    const relax::TensorStructInfoNode* t = TensorOf(*v);
    if (t == nullptr || !t->HasKnownShape() || t->ndim > 1 || (t->ndim == 1 && !tir::AsConstInt(t->Dims()[0]))) {
      return absl::InvalidArgumentError(absl::StrCat("input ", i, " must be a scalar"));
    }
    args.push_back(*v);
  }
  return CallAllocating(ctx, "mlc.range", std::move(args), {{TensorOf(args[0])->dtype, {CountVar(node)}}});
}

/*! \brief CastLike: to the dtype of input 1. */
Outputs CastLike(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> like = ctx.Input(node, 1);
  if (!like.ok()) return like.status();
  const relax::TensorStructInfoNode* t = TensorOf(*like);
  if (t == nullptr || t->dtype.is_void()) return absl::InvalidArgumentError("input 1 needs a known dtype");
  return One(ctx.EmitOp("astype", {*x}, {{"dtype", t->dtype}}));
}

}  // namespace

void RegisterTransformOnnxConverters(OnnxConverterRegistry& r) {
  r.Register("Shape", Shape);
  r.Register("Size", Size);
  r.Register("ConstantOfShape", ConstantOfShape);
  r.Register("Concat", Concat);
  r.Register("Gather", Gather);
  r.Register("GatherElements", GatherElements);
  r.Register("Unsqueeze", ChangeRank(/*unsqueeze=*/true));
  r.Register("Squeeze", ChangeRank(/*unsqueeze=*/false));
  r.Register("Split", Split);
  r.Register("Expand", Expand);
  r.Register("Where", Where);
  r.Register("Cast", Cast);
  r.Register("CastLike", CastLike);
  r.Register("Tile", Tile);
  r.Register("OneHot", OneHot);
  r.Register("Range", Range);
}

}  // namespace onnx_import
}  // namespace mlc
