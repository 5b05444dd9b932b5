/*! \file onnx_rearrange_converters.cc
 *  \brief ONNX operators that move elements without arithmetic on them: DepthToSpace and
 *         SpaceToDepth (reshape, transpose, reshape), GatherND (one `take` of the data with its
 *         leading indexed axes flattened), ReverseSequence (one take_along_axis), Compress (a
 *         take of constant indices) and EyeLike (a constant).
 */
#include "frontend/onnx/converter_util.h"

namespace mlc {
namespace onnx_import {
namespace {

/*! \brief reshape -> permute_dims -> reshape, with the batch kept symbolic. */
relax::Expr Rearrange(Composer& c, OnnxContext& ctx, const relax::Expr& x, std::vector<tir::PrimExpr> split,
                      std::vector<int64_t> order, std::vector<tir::PrimExpr> merged) {
  relax::Expr y = c.Take(Reshaped(ctx, x, split), x);
  y = c.Op("permute_dims", {y}, {{"axes", order}});
  if (!c.status().ok()) return y;
  return c.Take(Reshaped(ctx, y, merged), y);
}

/*! \brief The (N, C, H, W) of a block rearrangement's input, C, H, W static; N may be symbolic. */
absl::StatusOr<std::vector<tir::PrimExpr>> NchwDims(const relax::Expr& x, const char* op) {
  const auto* t = TensorOf(x);
  if (t == nullptr || t->ndim != 4 || !t->HasKnownShape())
    return absl::InvalidArgumentError(absl::StrCat(op, " needs NCHW input"));
  std::vector<tir::PrimExpr> dims = t->Dims();
  for (int d = 1; d < 4; ++d) {
    if (tir::AsConstInt(dims[d]) == nullptr)
      return absl::UnimplementedError(absl::StrCat(op, " needs static C, H and W"));
  }
  return dims;
}

int64_t Static(const tir::PrimExpr& e) { return *tir::AsConstInt(e); }

/*! \brief (N, C, H, W) -> (N, C / b^2, H * b, W * b); DCR reads the channels as (b, b, C / b^2), CRD
 *  as (C / b^2, b, b). */
Outputs DepthToSpace(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<tir::PrimExpr>> dims = NchwDims(*x, "DepthToSpace");
  if (!dims.ok()) return dims.status();
  const int64_t b = ctx.IntAttr(node, "blocksize", 0), c = Static((*dims)[1]), h = Static((*dims)[2]),
                w = Static((*dims)[3]);
  if (b <= 0 || c % (b * b) != 0)
    return absl::InvalidArgumentError(absl::StrCat("blocksize ", b, " must divide C = ", c, " twice"));
  const std::string mode = ctx.StringAttr(node, "mode", "DCR");
  if (mode != "DCR" && mode != "CRD")
    return absl::InvalidArgumentError(absl::StrCat("unknown mode '", mode, "' (DCR or CRD)"));
  using tir::I64;
  const tir::PrimExpr n = (*dims)[0];
  Composer comp(ctx, *x);
  relax::Expr y = mode == "DCR" ? Rearrange(comp, ctx, *x, {n, I64(b), I64(b), I64(c / (b * b)), I64(h), I64(w)},
                                            {0, 3, 4, 1, 5, 2}, {n, I64(c / (b * b)), I64(h * b), I64(w * b)})
                                : Rearrange(comp, ctx, *x, {n, I64(c / (b * b)), I64(b), I64(b), I64(h), I64(w)},
                                            {0, 1, 4, 2, 5, 3}, {n, I64(c / (b * b)), I64(h * b), I64(w * b)});
  return comp.Result(y);
}

/*! \brief (N, C, H, W) -> (N, C * b^2, H / b, W / b), the blocks' offsets becoming the leading channels. */
Outputs SpaceToDepth(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<tir::PrimExpr>> dims = NchwDims(*x, "SpaceToDepth");
  if (!dims.ok()) return dims.status();
  const int64_t b = ctx.IntAttr(node, "blocksize", 0), c = Static((*dims)[1]), h = Static((*dims)[2]),
                w = Static((*dims)[3]);
  if (b <= 0 || h % b != 0 || w % b != 0) {
    return absl::InvalidArgumentError(absl::StrCat("blocksize ", b, " must divide H = ", h, " and W = ", w));
  }
  using tir::I64;
  const tir::PrimExpr n = (*dims)[0];
  Composer comp(ctx, *x);
  relax::Expr y = Rearrange(comp, ctx, *x, {n, I64(c), I64(h / b), I64(b), I64(w / b), I64(b)}, {0, 3, 5, 1, 2, 4},
                            {n, I64(c * b * b), I64(h / b), I64(w / b)});
  return comp.Result(y);
}

/*! \brief GatherND: data's first batch_dims axes are shared with the indices; each index tuple
 *  (the indices' last axis, k long) picks data's next k axes. The tuple becomes one linear
 *  index into data with those batch and indexed axes flattened (negative entries wrapped,
 *  each batch's offset added), so the gather is one `take`. */
Outputs GatherND(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> data = ctx.Input(node, 0);
  if (!data.ok()) return data.status();
  absl::StatusOr<relax::Expr> indices = ctx.Input(node, 1);
  if (!indices.ok()) return indices.status();
  absl::StatusOr<std::vector<int64_t>> ds = StaticShape(*data, "GatherND's data");
  if (!ds.ok()) return ds.status();
  // Without batch axes only the tuples' length must be static: the number of tuples may be a
  // size decided at run time (the indices of NonZero, as x[x > 0] exports).
  const int64_t b = ctx.IntAttr(node, "batch_dims", 0);
  const relax::TensorStructInfoNode* it = TensorOf(*indices);
  absl::StatusOr<std::vector<int64_t>> is = StaticShape(*indices, "GatherND's indices");
  if (!is.ok() && b == 0 && it != nullptr && it->HasKnownShape() && it->ndim >= 1 &&
      tir::AsConstInt(it->Dims().back())) {
    is = std::vector<int64_t>(static_cast<size_t>(it->ndim), 1);
    is->back() = *tir::AsConstInt(it->Dims().back());
  }
  if (!is.ok()) return is.status();
  const int64_t r = static_cast<int64_t>(ds->size()), q = static_cast<int64_t>(is->size());
  if (q < 1 || b < 0 || b >= q || b >= r)
    return absl::InvalidArgumentError("batch_dims must be below the ranks of data and indices");
  const int64_t k = is->back();
  if (k < 1 || b + k > r)
    return absl::InvalidArgumentError(
        absl::StrCat("index tuples of ", k, " do not fit data of rank ", r, " after ", b, " batch axes"));
  for (int64_t d = 0; d < b; ++d) {
    if ((*ds)[d] != (*is)[d]) return absl::InvalidArgumentError("data and indices must agree on the batch axes");
  }
  // Row-major strides of the indexed axes, their sizes, and each batch's first flat position.
  std::vector<double> strides(k), sizes(k);
  int64_t block = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    strides[j] = static_cast<double>(block);
    sizes[j] = static_cast<double>((*ds)[b + j]);
    block *= (*ds)[b + j];
  }
  int64_t batches = 1;
  for (int64_t d = 0; d < b; ++d) batches *= (*ds)[d];
  std::vector<int64_t> offset_shape(is->begin(), is->end() - 1);
  std::vector<double> offsets(NumElements(offset_shape));
  const int64_t per_batch = static_cast<int64_t>(offsets.size()) / std::max<int64_t>(batches, 1);
  for (size_t i = 0; i < offsets.size(); ++i)
    offsets[i] = static_cast<double>(static_cast<int64_t>(i) / per_batch * block);
  Composer c(ctx, *indices);
  relax::Expr idx = c.Cast(*indices, DataType::Int64());
  relax::Expr size_k = relax::MakeConstant(TensorFromDoubles(DataType::Int64(), {k}, sizes));
  idx = c.Op("where", {c.Op("less", {idx, Scalar(0, DataType::Int64())}), c.Add(idx, size_k), idx});
  relax::Expr flat = c.Op("sum", {c.Mul(idx, relax::MakeConstant(TensorFromDoubles(DataType::Int64(), {k}, strides)))},
                          {{"axis", std::vector<int64_t>{-1}}, {"keepdims", false}});
  if (b > 0) flat = c.Add(flat, relax::MakeConstant(TensorFromDoubles(DataType::Int64(), offset_shape, offsets)));
  std::vector<int64_t> table = {batches * block};
  table.insert(table.end(), ds->begin() + b + k, ds->end());
  relax::Expr rows = c.Op("reshape", {*data}, {{"shape", table}});
  return c.Result(c.Op("take", {rows, flat}, {{"axis", int64_t{0}}}));
}

/*! \brief A 2-D constant of the input's shape with ones on diagonal k. */
Outputs EyeLike(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> xs = StaticShape(*x, "EyeLike's input");
  if (!xs.ok()) return xs.status();
  if (xs->size() != 2)
    return absl::InvalidArgumentError(absl::StrCat("EyeLike needs a 2-D input, got rank ", xs->size()));
  DataType dtype = TensorOf(*x)->dtype;
  if (ctx.HasAttr(node, "dtype")) {
    absl::StatusOr<DataType> d = DtypeFromOnnx(static_cast<int32_t>(ctx.IntAttr(node, "dtype", 1)));
    if (!d.ok()) return d.status();
    dtype = *d;
  }
  const int64_t rows = (*xs)[0], cols = (*xs)[1], k = ctx.IntAttr(node, "k", 0);
  std::vector<double> values(rows * cols, 0);
  for (int64_t i = 0; i < rows; ++i) {
    if (i + k >= 0 && i + k < cols) values[i * cols + i + k] = 1;
  }
  return std::vector<relax::Expr>{relax::MakeConstant(TensorFromDoubles(dtype, *xs, values))};
}

/*! \brief ReverseSequence: along time_axis, the first sequence_lens[b] elements of batch entry b
 *  reversed, the rest kept. One take_along_axis by index t' = t < len ? len - 1 - t : t,
 *  computed from the lengths (a constant when they are: the calls fold at import). */
Outputs ReverseSequence(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> lens = ctx.Input(node, 1);
  if (!lens.ok()) return lens.status();
  absl::StatusOr<std::vector<int64_t>> shape = StaticShape(*x, "the input");
  if (!shape.ok()) return shape.status();
  const int64_t rank = static_cast<int64_t>(shape->size());
  const int64_t time_axis = ctx.IntAttr(node, "time_axis", 0), batch_axis = ctx.IntAttr(node, "batch_axis", 1);
  if (rank < 2 || (time_axis != 0 && time_axis != 1) || batch_axis != 1 - time_axis) {
    return absl::InvalidArgumentError(absl::StrCat("time_axis ", time_axis, " and batch_axis ", batch_axis,
                                                   " must be 0 and 1 in some order, of an input of rank >= 2"));
  }
  const int64_t steps = (*shape)[time_axis], batch = (*shape)[batch_axis];
  // (T, 1) or (1, T) iota against (1, B) or (B, 1) lengths, then ones for the trailing axes.
  std::vector<int64_t> t_shape(rank, 1), b_shape(rank, 1);
  t_shape[time_axis] = steps;
  b_shape[batch_axis] = batch;
  std::vector<int64_t> iota(steps);
  for (int64_t t = 0; t < steps; ++t) iota[t] = t;
  Composer c(ctx, Scalar(0, DataType::Int64()));
  relax::Expr t = c.Op("reshape", {relax::MakeConstant(Int64Tensor(iota))}, {{"shape", t_shape}});
  relax::Expr len = c.Op("reshape", {c.Cast(*lens, DataType::Int64())}, {{"shape", b_shape}});
  relax::Expr reversed = c.Sub(c.Sub(len, c.K(1)), t);
  relax::Expr index = c.Op("where", {c.Op("less", {t, len}), reversed, t});
  index = c.Op("broadcast_to", {index}, {{"shape", *shape}});
  return c.Result(c.Op("take_along_axis", {*x, index}, {{"axis", time_axis}}));
}

/*! \brief Compress(input, condition[, axis]): the slices along `axis` (of the flattened input
 *  without one) whose condition is true, as one `take` of their indices. The condition sizes the
 *  result, so it must be a constant. */
Outputs Compress(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> condition =
      ctx.ConstantInts(node, 1, "condition (it decides the result's size)");
  if (!condition.ok()) return condition.status();
  absl::StatusOr<std::vector<int64_t>> shape = StaticShape(*x, "Compress's input");
  if (!shape.ok()) return shape.status();
  relax::Expr data = *x;
  int64_t axis = 0;
  if (ctx.HasAttr(node, "axis")) {
    const int64_t rank = static_cast<int64_t>(shape->size());
    axis = ctx.IntAttr(node, "axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank)
      return absl::InvalidArgumentError(absl::StrCat("axis ", ctx.IntAttr(node, "axis", 0), " is out of range"));
  } else {
    absl::StatusOr<relax::Expr> flat =
        ctx.EmitOp("reshape", {*x}, {{"shape", std::vector<int64_t>{NumElements(*shape)}}});
    if (!flat.ok()) return flat.status();
    data = *flat;
    shape = std::vector<int64_t>{NumElements(*shape)};
  }
  if (static_cast<int64_t>(condition->size()) > (*shape)[axis]) {
    return absl::InvalidArgumentError(
        absl::StrCat("the condition has ", condition->size(), " values for an axis of ", (*shape)[axis]));
  }
  std::vector<int64_t> kept;
  for (size_t i = 0; i < condition->size(); ++i) {
    if ((*condition)[i] != 0) kept.push_back(static_cast<int64_t>(i));
  }
  return One(ctx.EmitOp("take", {data, relax::MakeConstant(Int64Tensor(kept))}, {{"axis", axis}}));
}

}  // namespace

void RegisterRearrangeOnnxConverters(OnnxConverterRegistry& r) {
  r.Register("Compress", Compress);
  r.Register("ReverseSequence", ReverseSequence);
  r.Register("DepthToSpace", DepthToSpace);
  r.Register("SpaceToDepth", SpaceToDepth);
  r.Register("GatherND", GatherND);
  r.Register("EyeLike", EyeLike);
}

}  // namespace onnx_import
}  // namespace mlc
