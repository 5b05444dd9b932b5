/*! \file fx_aten_converters.cc
 *  \brief FX converters of ATen operators: the graphs `make_fx` records (export_fx.py's
 *         capture="aten"), where every module, function and method has become calls of
 *         `aten.<op>.<overload>` on tensors, parameters as constants.
 *
 *  The set is what torchvision's classifiers and transformer blocks decompose to. An ATen
 *  operator whose arguments are those of a torch function already converted reuses that
 *  converter (the alias table); the rest are written here. Operators that return several
 *  tensors in ATen (native_batch_norm, native_layer_norm, max_pool2d_with_indices) return a
 *  tuple whose first element is the result; the statistics and indices of training are not
 *  computed (an eval-mode graph reads only the first).
 */
#include <algorithm>
#include <cmath>
#include <optional>

#include "absl/strings/str_cat.h"
#include "frontend/common/activations.h"
#include "frontend/common/conv_transpose.h"
#include "frontend/common/static_shape.h"
#include "frontend/torch/fx_activation.h"
#include "frontend/torch/fx_converter_util.h"
#include "ir/ops/op_attrs.h"

namespace mlc {
namespace fx {
namespace {

using K = FxConverterRegistry;

bool IsNone(const proto::FxNode& node, int i) {
  return i >= node.args_size() || node.args(i).value_case() == proto::FxArg::kNone;
}

/*! \brief The converter's result as the first element of a tuple (ATen's multi-result operators). */
FxConverter FirstOfTuple(FxConverter converter) {
  return [converter](FxContext& ctx, const proto::FxNode& node) -> absl::StatusOr<relax::Expr> {
    absl::StatusOr<relax::Expr> y = converter(ctx, node);
    if (!y.ok()) return y.status();
    return relax::MakeTuple({*y});
  };
}

absl::StatusOr<relax::Expr> Same(FxContext& ctx, const proto::FxNode& node) { return ctx.Arg(node, 0); }

/*! \brief aten.convolution(input, weight, bias, stride, padding, dilation, transposed,
 *  output_padding, groups), 2-D and 3-D; transposed ones as frontend/common/conv_transpose.h. */
absl::StatusOr<relax::Expr> Convolution(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> w = ctx.Arg(node, 1);
  if (!w.ok()) return w.status();
  const int64_t spatial = RankOf(*w) - 2;
  std::vector<int64_t> strides = IntListArg(node, 3, "stride"), pad = IntListArg(node, 4, "padding"),
                       dilation = IntListArg(node, 5, "dilation");
  if (spatial < 2 || spatial > 3 || strides.size() != static_cast<size_t>(spatial) ||
      pad.size() != static_cast<size_t>(spatial) || dilation.size() != static_cast<size_t>(spatial)) {
    return absl::UnimplementedError(
        absl::StrCat("convolution over ", spatial, " spatial axes (2-D and 3-D are supported)"));
  }
  std::vector<int64_t> padding = pad;
  padding.insert(padding.end(), pad.begin(), pad.end());
  const int64_t groups = IntArg(node, 8, "groups", 1);
  absl::StatusOr<relax::Expr> y;
  if (BoolArg(node, 6, "transposed", false)) {
    std::vector<int64_t> output_padding = IntListArg(node, 7, "output_padding");
    if (output_padding.empty()) output_padding.assign(spatial, 0);
    y = frontend::ConvTranspose(frontend::EmitterOf(ctx), *x, *w, {strides, dilation, padding, output_padding, groups});
  } else {
    y = spatial == 2
            ? ctx.EmitOp("nn.conv2d", {*x, *w}, relax::ToAttrs(relax::Conv2DAttrs{strides, padding, dilation, groups}))
            : ctx.EmitOp("nn.conv3d", {*x, *w}, relax::ToAttrs(relax::Conv3DAttrs{strides, padding, dilation, groups}));
  }
  if (!y.ok() || IsNone(node, 2)) return y;
  absl::StatusOr<relax::Expr> b = ctx.Arg(node, 2);
  if (!b.ok()) return b.status();
  const auto* constant = b->as<relax::ConstantNode>();
  if (constant == nullptr) return absl::UnimplementedError("a convolution bias that is not a constant");
  return ctx.EmitOp("add", {*y, PerChannel(constant->data, static_cast<int>(spatial))});
}

/*! \brief aten.native_batch_norm(input, weight, bias, running_mean, running_var, training,
 *  momentum, eps) in eval mode, folded into a per-channel scale and shift. */
absl::StatusOr<relax::Expr> NativeBatchNorm(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  if (BoolArg(node, 5, "training", false))
    return absl::UnimplementedError("batch norm in training mode (export the model in eval mode)");
  std::vector<const TensorData*> p(4, nullptr);  // weight, bias, mean, var
  for (int i = 0; i < 4; ++i) {
    if (IsNone(node, 1 + i)) continue;
    absl::StatusOr<relax::Expr> v = ctx.Arg(node, 1 + i);
    if (!v.ok()) return v.status();
    const auto* c = v->as<relax::ConstantNode>();
    if (c == nullptr) return absl::UnimplementedError("batch norm whose parameters are not constants");
    p[i] = &c->data;
  }
  if (p[2] == nullptr || p[3] == nullptr)
    return absl::InvalidArgumentError("batch norm in eval mode needs running_mean and running_var");
  absl::StatusOr<relax::Expr> y = FoldedBatchNorm(ctx, *x, p[0], p[1], *p[2], *p[3], NumberArg(node, 7, "eps", 1e-5),
                                                  static_cast<int>(RankOf(*x)) - 2);
  if (!y.ok()) return y.status();
  return relax::MakeTuple({*y});
}

/*! \brief aten.addmm(bias, a, b) and aten.baddbmm(bias, a, b) (batched: attention with a
 *  float mask as its bias): a @ b + bias. */
absl::StatusOr<relax::Expr> Addmm(FxContext& ctx, const proto::FxNode& node) {
  std::vector<relax::Expr> v;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<relax::Expr> a = ctx.Arg(node, i);
    if (!a.ok()) return a.status();
    v.push_back(*a);
  }
  if (NumberArg(node, 3, "beta", 1) != 1 || NumberArg(node, 4, "alpha", 1) != 1) {
    return absl::UnimplementedError(absl::StrCat(node.target(), " with beta or alpha other than 1"));
  }
  absl::StatusOr<relax::Expr> product = ctx.EmitOp("matmul", {v[1], v[2]});
  if (!product.ok()) return product.status();
  return ctx.EmitOp("add", {*product, v[0]});
}

/*! \brief aten.t (a matrix transposed) and aten.transpose.int(x, dim0, dim1). */
absl::StatusOr<relax::Expr> Transpose(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  const int64_t rank = RankOf(*x);
  if (rank < 0) return absl::InvalidArgumentError("needs an input of known rank");
  const bool t = node.target() == "aten.t.default";
  if (t && rank < 2) return *x;
  int64_t a = t ? 0 : IntArg(node, 1, "dim0", 0), b = t ? 1 : IntArg(node, 2, "dim1", 1);
  if (a < 0) a += rank;
  if (b < 0) b += rank;
  if (a < 0 || a >= rank || b < 0 || b >= rank) return absl::InvalidArgumentError("transpose dims out of range");
  std::vector<int64_t> axes(rank);
  for (int64_t d = 0; d < rank; ++d) axes[d] = d;
  std::swap(axes[a], axes[b]);
  return ctx.EmitOp("permute_dims", {*x}, {{"axes", axes}});
}

/*! \brief aten.slice.Tensor(x, dim, start, end, step). */
absl::StatusOr<relax::Expr> Slice(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  const int64_t rank = RankOf(*x);
  int64_t axis = IntArg(node, 1, "dim", 0);
  if (axis < 0) axis += rank;
  const int64_t kEnd = int64_t{1} << 40;
  int64_t begin = IsNone(node, 2) ? 0 : IntArg(node, 2, "start", 0),
          end = IsNone(node, 3) ? kEnd : IntArg(node, 3, "end", kEnd);
  end = std::min(end, kEnd);
  relax::StridedSliceAttrs attrs{{axis}, {begin}, {end}, {IntArg(node, 4, "step", 1)}};
  return ctx.EmitOp("strided_slice", {*x}, relax::ToAttrs(attrs));
}

/*! \brief x's entry `index` along `axis`, the axis dropped (a take of a 0-d index). */
absl::StatusOr<relax::Expr> TakeAt(FxContext& ctx, const relax::Expr& x, int64_t axis, int64_t index) {
  return ctx.EmitOp("take", {x, relax::MakeConstant(ScalarTensor(static_cast<double>(index), DataType::Int64()))},
                    {{"axis", axis}});
}

/*! \brief aten.select.int(x, dim, index): x's entry `index` along `dim`, the axis dropped. */
absl::StatusOr<relax::Expr> Select(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  const int64_t rank = RankOf(*x);
  int64_t axis = IntArg(node, 1, "dim", 0), index = IntArg(node, 2, "index", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return absl::InvalidArgumentError(absl::StrCat("dim out of range for rank ", rank));
  return TakeAt(ctx, *x, axis, index);
}

/*! \brief aten.unbind.int(x, dim): the slices along dim, each without it (a tuple; a recurrent
 *  layer decomposed by ATen capture unbinds its sequence into steps). */
absl::StatusOr<relax::Expr> Unbind(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> dims = frontend::KnownShape(*x, "unbind's tensor");
  if (!dims.ok()) return dims.status();
  const int64_t rank = static_cast<int64_t>(dims->size());
  int64_t axis = IntArg(node, 1, "dim", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank)
    return absl::InvalidArgumentError(absl::StrCat("unbind's dim out of range for rank ", rank));
  const int64_t extent = (*dims)[axis];
  if (extent < 0) return absl::InvalidArgumentError(absl::StrCat("unbind needs dim ", axis, " of static size"));
  std::vector<relax::Expr> parts;
  for (int64_t i = 0; i < extent; ++i) {
    absl::StatusOr<relax::Expr> part = TakeAt(ctx, *x, axis, i);
    if (!part.ok()) return part.status();
    parts.push_back(*part);
  }
  return relax::MakeTuple(parts);
}

/*! \brief aten.stack(tensors, dim): each tensor given a unit axis at dim, concatenated there. */
absl::StatusOr<relax::Expr> Stack(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<std::vector<relax::Expr>> xs = ValueListArg(ctx, node, 0, "tensors", "stack");
  if (!xs.ok()) return xs.status();
  int64_t axis = IntArg(node, 1, "dim", 0);
  if (axis < 0) axis += RankOf(xs->front()) + 1;
  std::vector<relax::Expr> parts;
  for (const relax::Expr& x : *xs) {
    absl::StatusOr<std::vector<int64_t>> shape = frontend::StaticShape(x, "stack's tensor");
    if (!shape.ok()) return shape.status();
    if (axis < 0 || axis > static_cast<int64_t>(shape->size()))
      return absl::InvalidArgumentError(absl::StrCat("stack dim out of range for rank ", shape->size()));
    shape->insert(shape->begin() + axis, 1);
    absl::StatusOr<relax::Expr> e = ctx.EmitOp("reshape", {x}, {{"shape", *shape}});
    if (!e.ok()) return e.status();
    parts.push_back(*e);
  }
  return ctx.EmitOp("concat", parts, {{"axis", axis}});
}

/*! \brief aten.empty / aten.zeros(size, dtype=...): zeros of the recorded shape and dtype. */
absl::StatusOr<relax::Expr> Zeros(FxContext& ctx, const proto::FxNode& node) {
  if (node.outputs_size() != 1) return absl::InvalidArgumentError("the result shape was not recorded");
  std::vector<int64_t> shape(node.outputs(0).shape().begin(), node.outputs(0).shape().end());
  absl::StatusOr<DataType> dtype = DataType::Parse(node.outputs(0).dtype());
  if (!dtype.ok()) return dtype.status();
  return relax::MakeConstant(TensorData(*dtype, shape));
}

/*! \brief aten.as_strided(x, size, stride, offset) where it only renames the shape (functionalized
 *  views: a mean kept as (N, C, 1, 1)): the strides of the dimensions longer than 1 those of a
 *  row-major tensor of `size`, no offset, as many elements. Any other view is not supported. */
absl::StatusOr<relax::Expr> AsStrided(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  const std::vector<int64_t> size = IntListArg(node, 1, "size"), stride = IntListArg(node, 2, "stride");
  bool row_major = size.size() == stride.size() && IntArg(node, 3, "storage_offset", 0) == 0;
  int64_t expected = 1;
  for (int64_t d = static_cast<int64_t>(size.size()) - 1; row_major && d >= 0; --d) {
    row_major = size[d] == 1 || stride[d] == expected;
    expected *= size[d];
  }
  const auto* t = (*x)->struct_info().as<relax::TensorStructInfoNode>();
  if (!row_major || t == nullptr || !t->shape || NumElements(*t->shape) != expected) {
    return absl::UnimplementedError("as_strided other than a reshape of a whole tensor is not supported");
  }
  return ctx.EmitOp("reshape", {*x}, {{"shape", size}});
}

/*! \brief A view to the recorded result shape (unsqueeze, squeeze, flatten: the shape says it all). */
absl::StatusOr<relax::Expr> RecordedReshape(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  if (node.outputs_size() != 1) return absl::InvalidArgumentError("the result shape was not recorded");
  std::vector<int64_t> shape(node.outputs(0).shape().begin(), node.outputs(0).shape().end());
  return ctx.EmitOp("reshape", {*x}, {{"shape", shape}});
}

/*! \brief A tensor of the recorded shape and dtype filled with `value` (zeros_like, ones_like,
 *  full_like(x, v), full(size, v), scalar_tensor(v), arange of static bounds: values decided at
 *  capture time). */
absl::StatusOr<relax::Expr> Filled(FxContext& ctx, const proto::FxNode& node, double value) {
  if (node.outputs_size() != 1) return absl::InvalidArgumentError("the result shape was not recorded");
  std::vector<int64_t> shape(node.outputs(0).shape().begin(), node.outputs(0).shape().end());
  absl::StatusOr<DataType> dtype = DataType::Parse(node.outputs(0).dtype());
  if (!dtype.ok()) return dtype.status();
  return relax::MakeConstant(TensorFromDoubles(*dtype, shape, std::vector<double>(NumElements(shape), value)));
}

/*! \brief aten.arange.start_step(start, end, step) / arange(end) with static bounds: a constant. */
absl::StatusOr<relax::Expr> Arange(FxContext& ctx, const proto::FxNode& node) {
  if (node.outputs_size() != 1 || node.outputs(0).shape_size() != 1)
    return absl::InvalidArgumentError("the result shape was not recorded");
  const bool one = node.args_size() == 1;
  const double start = one ? 0 : NumberArg(node, 0, "start", 0), step = one ? 1 : NumberArg(node, 2, "step", 1);
  absl::StatusOr<DataType> dtype = DataType::Parse(node.outputs(0).dtype());
  if (!dtype.ok()) return dtype.status();
  std::vector<double> values(node.outputs(0).shape(0));
  for (size_t i = 0; i < values.size(); ++i) values[i] = start + static_cast<double>(i) * step;
  return relax::MakeConstant(TensorFromDoubles(*dtype, {static_cast<int64_t>(values.size())}, values));
}

/*! \brief aten.rsub.Scalar(x, other, alpha=1): other - alpha * x. */
absl::StatusOr<relax::Expr> Rsub(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> other = Operand(ctx, node, 1, DtypeOf(*x));
  if (!other.ok()) return other.status();
  if (NumberArg(node, 2, "alpha", 1) != 1) return absl::UnimplementedError("rsub with alpha other than 1");
  return ctx.EmitOp("subtract", {*other, *x});
}

/*! \brief aten.where.self(condition, x, y). */
absl::StatusOr<relax::Expr> Where(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> cond = ctx.Arg(node, 0);
  if (!cond.ok()) return cond.status();
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 1);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> y = Operand(ctx, node, 2, DtypeOf(*x));
  if (!y.ok()) return y.status();
  return ctx.EmitOp("where", {*cond, *x, *y});
}

/*! \brief aten.embedding(weight, indices): rows of the table. */
absl::StatusOr<relax::Expr> Embedding(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> w = ctx.Arg(node, 0);
  if (!w.ok()) return w.status();
  absl::StatusOr<relax::Expr> ids = ctx.Arg(node, 1);
  if (!ids.ok()) return ids.status();
  return ctx.EmitOp("take", {*w, *ids}, {{"axis", int64_t{0}}});
}

/*! \brief aten.index.Tensor(x, indices): advanced indexing by integer tensors, a None per axis
 *  left whole (`table[idx]`: Swin's and MaxViT's relative-position biases). The index tensors
 *  must sit on adjacent axes and share one static shape; several are one index into those axes
 *  merged (i0 * n1 + i1 ...). Boolean masks select a number of elements the data decide and
 *  are refused. */
absl::StatusOr<relax::Expr> Index(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  if (node.args_size() < 2 || node.args(1).value_case() != proto::FxArg::kList)
    return absl::InvalidArgumentError("aten.index needs a list of index tensors");
  std::vector<int64_t> axes;
  std::vector<relax::Expr> indices;
  const auto& items = node.args(1).list().items();
  for (int i = 0; i < items.size(); ++i) {
    if (items[i].value_case() == proto::FxArg::kNone) continue;
    absl::StatusOr<relax::Expr> index = ctx.Value(items[i]);
    if (!index.ok()) return index.status();
    const auto* t = (*index)->struct_info().as<relax::TensorStructInfoNode>();
    if (t == nullptr || !t->dtype.is_int())
      return absl::UnimplementedError(
          "aten.index by a boolean mask or a non-integer tensor (a size the data decide) is not supported");
    axes.push_back(i);
    indices.push_back(*index);
  }
  if (indices.empty()) return *x;
  for (size_t i = 1; i < axes.size(); ++i) {
    if (axes[i] != axes[i - 1] + 1)
      return absl::UnimplementedError("aten.index by index tensors on axes that are not adjacent is not supported");
  }
  absl::StatusOr<std::vector<int64_t>> xs = frontend::StaticShape(*x, "aten.index's input");
  if (!xs.ok()) return xs.status();
  const int64_t first = axes.front();
  relax::Expr index = indices.front();
  if (indices.size() > 1) {
    absl::StatusOr<std::vector<int64_t>> shape = frontend::StaticShape(index, "aten.index's indices");
    if (!shape.ok()) return shape.status();
    // The indexed axes merged into one: index = (i0 * n1 + i1) * n2 + i2 ...
    std::vector<int64_t> merged(xs->begin(), xs->begin() + first);
    int64_t span = 1;
    for (size_t i = 0; i < indices.size(); ++i) {
      absl::StatusOr<std::vector<int64_t>> other = frontend::StaticShape(indices[i], "aten.index's indices");
      if (!other.ok()) return other.status();
      if (*other != *shape) return absl::UnimplementedError("aten.index by index tensors of different shapes");
      const int64_t n = (*xs)[first + i];
      span *= n;
      if (i > 0) {
        absl::StatusOr<relax::Expr> scaled = ctx.EmitOp(
            "multiply", {index, relax::MakeConstant(ScalarTensor(static_cast<double>(n), DataType::Int64()))});
        if (!scaled.ok()) return scaled.status();
        absl::StatusOr<relax::Expr> sum = ctx.EmitOp("add", {*scaled, indices[i]});
        if (!sum.ok()) return sum.status();
        index = *sum;
      }
    }
    merged.push_back(span);
    merged.insert(merged.end(), xs->begin() + first + static_cast<int64_t>(indices.size()), xs->end());
    absl::StatusOr<relax::Expr> flat = ctx.EmitOp("reshape", {*x}, {{"shape", merged}});
    if (!flat.ok()) return flat.status();
    x = flat;
  }
  return ctx.EmitOp("take", {*x, index}, {{"axis", first}});
}

/*! \brief aten.roll(x, shifts, dims): each dim rotated by its shift (the last |shift| entries
 *  first for a positive one: Swin's shifted windows), as two slices concatenated; without dims,
 *  the flattened x rotated and its shape restored. */
absl::StatusOr<relax::Expr> Roll(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> xs = frontend::StaticShape(*x, "aten.roll's input");
  if (!xs.ok()) return xs.status();
  std::vector<int64_t> shifts = IntListArg(node, 1, "shifts"), dims = IntListArg(node, 2, "dims");
  const bool flat = dims.empty();
  std::vector<int64_t> shape = flat ? std::vector<int64_t>{NumElements(*xs)} : *xs;
  if (flat) dims = {0};
  if (shifts.size() != dims.size())
    return absl::InvalidArgumentError(
        absl::StrCat("aten.roll has ", shifts.size(), " shifts for ", dims.size(), " dims"));
  frontend::Composer c(ctx, *x);
  relax::Expr y = flat ? c.Reshape(*x, shape) : *x;
  const int64_t rank = static_cast<int64_t>(shape.size());
  for (size_t i = 0; i < dims.size(); ++i) {
    const int64_t axis = dims[i] < 0 ? dims[i] + rank : dims[i];
    if (axis < 0 || axis >= rank)
      return absl::InvalidArgumentError(absl::StrCat("aten.roll: dim ", dims[i], " out of range for rank ", rank));
    const int64_t n = shape[axis];
    const int64_t shift = n > 0 ? ((shifts[i] % n) + n) % n : 0;
    if (shift == 0) continue;
    y = c.Op("concat", {c.Slice(y, axis, n - shift, n), c.Slice(y, axis, 0, n - shift)}, {{"axis", axis}});
  }
  if (flat) y = c.Reshape(y, *xs);
  if (!c.status().ok()) return c.status();
  return y;
}

/*! \brief aten.fill.Tensor(x, value): x's shape and dtype filled with a 0-d tensor's value (the
 *  functional form of `x[...] = v`, before the slice_scatter that puts it back). */
absl::StatusOr<relax::Expr> FillTensor(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> value = ctx.Arg(node, 1);
  if (!value.ok()) return value.status();
  absl::StatusOr<std::vector<int64_t>> shape = frontend::StaticShape(*x, "aten.fill's input");
  if (!shape.ok()) return shape.status();
  const auto* t = (*x)->struct_info().as<relax::TensorStructInfoNode>();
  absl::StatusOr<relax::Expr> cast = ctx.EmitOp("astype", {*value}, {{"dtype", t->dtype}});
  if (!cast.ok()) return cast.status();
  return ctx.EmitOp("broadcast_to", {*cast}, {{"shape", *shape}});
}

/*! \brief aten.slice_scatter(x, src, dim, start, end, step): x with x[start:end] along dim
 *  replaced by src (the functional form of an assignment to a slice), as the parts of x before
 *  and after concatenated around src; step 1 only. */
absl::StatusOr<relax::Expr> SliceScatter(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> src = ctx.Arg(node, 1);
  if (!src.ok()) return src.status();
  absl::StatusOr<std::vector<int64_t>> xs = frontend::StaticShape(*x, "aten.slice_scatter's input");
  if (!xs.ok()) return xs.status();
  const int64_t rank = static_cast<int64_t>(xs->size());
  int64_t axis = IntArg(node, 2, "dim", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return absl::InvalidArgumentError("aten.slice_scatter: dim out of range");
  const int64_t n = (*xs)[axis];
  auto bound = [&](int index, const char* name, int64_t fallback) {
    int64_t v = IsNone(node, index) ? fallback : IntArg(node, index, name, fallback);
    if (v < 0) v += n;
    return std::clamp<int64_t>(v, 0, n);
  };
  const int64_t start = bound(3, "start", 0), end = std::max(start, bound(4, "end", n));
  if (IntArg(node, 5, "step", 1) != 1) return absl::UnimplementedError("aten.slice_scatter with a step other than 1");
  frontend::Composer c(ctx, *x);
  std::vector<relax::Expr> parts;
  if (start > 0) parts.push_back(c.Slice(*x, axis, 0, start));
  parts.push_back(*src);
  if (end < n) parts.push_back(c.Slice(*x, axis, end, n));
  relax::Expr y = parts.size() == 1 ? parts.front() : c.Op("concat", parts, {{"axis", axis}});
  if (!c.status().ok()) return c.status();
  return y;
}

/*! \brief aten.clamp(x, min, max), either bound absent. */
relax::Expr Clamp(frontend::Composer& c, relax::Expr x, const proto::FxNode& node) {
  std::optional<relax::Expr> lo, hi;
  if (!IsNone(node, 1)) lo = c.K(NumberArg(node, 1, "min", 0));
  if (!IsNone(node, 2)) hi = c.K(NumberArg(node, 2, "max", 0));
  return frontend::Clamp(c, x, lo, hi);
}

/*! \brief aten._to_copy(x, dtype=...): a cast where a dtype is given, else x. */
absl::StatusOr<relax::Expr> ToCopy(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<DataType> dtype = DataType::Parse(node.outputs_size() == 1 ? node.outputs(0).dtype() : "");
  if (!dtype.ok() || *dtype == DtypeOf(*x)) return x;
  return ctx.EmitOp("astype", {*x}, {{"dtype", *dtype}});
}

/*! \brief aten.elu(x, alpha, scale, input_scale): scale * (max(0, x) + alpha * (exp(min(input_scale x,
 *  0)) - 1)); F.elu, F.selu and F.celu decompose to it. */
relax::Expr Elu(frontend::Composer& c, relax::Expr x, const proto::FxNode& node) {
  const double alpha = NumberArg(node, 1, "alpha", 1.0), scale = NumberArg(node, 2, "scale", 1.0);
  const double input_scale = NumberArg(node, 3, "input_scale", 1.0);
  return c.Mul(c.K(scale), frontend::Elu(c, x, alpha, input_scale));
}

/*! \brief An ATen operator whose arguments are those of a torch function (or tensor method)
 *  converted already, by position and keyword: its converter serves both. */
struct Alias {
  const char* aten;
  K::Kind kind;
  const char* existing;
  bool first_of_tuple;  // ATen returns (result, statistics or indices)
};

constexpr Alias kAliases[] = {
    {"aten.add.Tensor", K::kFunction, "torch.add", false},
    {"aten.sub.Tensor", K::kFunction, "torch.sub", false},
    {"aten.mul.Tensor", K::kFunction, "torch.mul", false},
    {"aten.div.Tensor", K::kFunction, "torch.div", false},
    {"aten.add.Scalar", K::kFunction, "torch.add", false},
    {"aten.mul.Scalar", K::kFunction, "torch.mul", false},
    {"aten.relu.default", K::kFunction, "torch.relu", false},
    {"aten.sigmoid.default", K::kFunction, "torch.sigmoid", false},
    {"aten.tanh.default", K::kFunction, "torch.tanh", false},
    {"aten.silu.default", K::kFunction, "torch.nn.functional.silu", false},
    {"aten.gelu.default", K::kFunction, "torch.nn.functional.gelu", false},
    {"aten.hardswish.default", K::kFunction, "torch.nn.functional.hardswish", false},
    {"aten.hardsigmoid.default", K::kFunction, "torch.nn.functional.hardsigmoid", false},
    {"aten.hardtanh.default", K::kFunction, "torch.nn.functional.hardtanh", false},
    {"aten.leaky_relu.default", K::kFunction, "torch.nn.functional.leaky_relu", false},
    {"aten.softplus.default", K::kFunction, "torch.nn.functional.softplus", false},
    {"aten.mish.default", K::kFunction, "torch.nn.functional.mish", false},
    {"aten.celu.default", K::kFunction, "torch.nn.functional.celu", false},
    {"aten.mm.default", K::kFunction, "torch.matmul", false},
    {"aten.bmm.default", K::kFunction, "torch.matmul", false},
    {"aten.matmul.default", K::kFunction, "torch.matmul", false},
    {"aten.cat.default", K::kFunction, "torch.cat", false},
    {"aten.mean.dim", K::kFunction, "torch.mean", false},
    {"aten.sum.dim_IntList", K::kFunction, "torch.sum", false},
    {"aten.permute.default", K::kFunction, "torch.permute", false},
    {"aten._softmax.default", K::kFunction, "torch.softmax", false},
    {"aten.view.default", K::kFunction, "torch.reshape", false},
    {"aten._reshape_alias.default", K::kFunction, "torch.reshape", false},
    {"aten._unsafe_view.default", K::kFunction, "torch.reshape", false},
    {"aten.reshape.default", K::kFunction, "torch.reshape", false},
    {"aten.expand.default", K::kMethod, "expand", false},
    {"aten.split.Tensor", K::kFunction, "torch.split", false},
    {"aten.unsafe_split.Tensor", K::kFunction, "torch.split", false},
    {"aten.split_with_sizes.default", K::kFunction, "torch.split", false},
    {"aten.logical_and.default", K::kFunction, "torch.logical_and", false},
    {"aten.logical_or.default", K::kFunction, "torch.logical_or", false},
    {"aten.logical_not.default", K::kFunction, "torch.logical_not", false},
    {"aten.avg_pool2d.default", K::kFunction, "torch.nn.functional.avg_pool2d", false},
    {"aten._adaptive_avg_pool2d.default", K::kFunction, "torch.nn.functional.adaptive_avg_pool2d", false},
    {"aten.max_pool2d_with_indices.default", K::kFunction, "torch.nn.functional.max_pool2d", true},
    {"aten.native_layer_norm.default", K::kFunction, "torch.nn.functional.layer_norm", true},
    {"aten.exp.default", K::kFunction, "torch.exp", false},
    {"aten.log.default", K::kFunction, "torch.log", false},
    {"aten.sqrt.default", K::kFunction, "torch.sqrt", false},
    {"aten.rsqrt.default", K::kFunction, "torch.rsqrt", false},
    {"aten.neg.default", K::kFunction, "torch.neg", false},
    {"aten.erf.default", K::kFunction, "torch.erf", false},
    {"aten.sin.default", K::kFunction, "torch.sin", false},
    {"aten.cos.default", K::kFunction, "torch.cos", false},
    {"aten.pow.Tensor_Scalar", K::kFunction, "torch.pow", false},
    {"aten.pow.Tensor_Tensor", K::kFunction, "torch.pow", false},
    {"aten.maximum.default", K::kFunction, "torch.maximum", false},
    {"aten.minimum.default", K::kFunction, "torch.minimum", false},
    {"aten.eq.Tensor", K::kFunction, "torch.eq", false},
    {"aten.eq.Scalar", K::kFunction, "torch.eq", false},
    {"aten.ne.Scalar", K::kFunction, "torch.ne", false},
    {"aten.lt.Tensor", K::kFunction, "torch.lt", false},
    {"aten.lt.Scalar", K::kFunction, "torch.lt", false},
    {"aten.le.Scalar", K::kFunction, "torch.le", false},
    {"aten.gt.Tensor", K::kFunction, "torch.gt", false},
    {"aten.gt.Scalar", K::kFunction, "torch.gt", false},
    {"aten.ge.Scalar", K::kFunction, "torch.ge", false},
    {"aten.masked_fill.Scalar", K::kFunction, "torch.masked_fill", false},
    {"aten.index_select.default", K::kFunction, "torch.index_select", false},
    {"aten.tril.default", K::kFunction, "torch.tril", false},
    {"aten.triu.default", K::kFunction, "torch.triu", false},
    {"aten.amax.default", K::kFunction, "torch.amax", false},
};

}  // namespace

void RegisterAtenFxConverters(FxConverterRegistry& r) {
  for (const Alias& a : kAliases) {
    const FxConverter* existing = r.Find(a.kind, a.existing);
    if (existing == nullptr) continue;  // not registered: the importer names the ATen operator unsupported
    r.Register(K::kFunction, a.aten, a.first_of_tuple ? FirstOfTuple(*existing) : *existing);
  }
  for (const char* same : {"aten.detach.default", "aten.clone.default", "aten.alias.default",
                           "aten.lift_fresh_copy.default", "aten.contiguous.default", "aten.dropout.default"}) {
    r.Register(K::kFunction, same, Same);
  }
  r.Register(K::kFunction, "aten.convolution.default", Convolution);
  r.Register(K::kFunction, "aten.native_batch_norm.default", NativeBatchNorm);
  r.Register(K::kFunction, "aten.addmm.default", Addmm);
  r.Register(K::kFunction, "aten.baddbmm.default", Addmm);
  r.Register(K::kFunction, "aten.t.default", Transpose);
  r.Register(K::kFunction, "aten.transpose.int", Transpose);
  r.Register(K::kFunction, "aten.slice.Tensor", Slice);
  r.Register(K::kFunction, "aten.select.int", Select);
  r.Register(K::kFunction, "aten.unbind.int", Unbind);
  r.Register(K::kFunction, "aten.stack.default", Stack);
  r.Register(K::kFunction, "aten.elu.default", Activation(Elu));
  r.Register(K::kFunction, "aten.as_strided.default", AsStrided);
  for (const char* zeros :
       {"aten.empty.memory_format", "aten.zeros.default", "aten.zeros_like.default", "aten.new_zeros.default"}) {
    r.Register(K::kFunction, zeros, Zeros);
  }
  r.Register(K::kFunction, "aten.ones_like.default",
             [](FxContext& ctx, const proto::FxNode& node) { return Filled(ctx, node, 1); });
  r.Register(K::kFunction, "aten.ones.default",
             [](FxContext& ctx, const proto::FxNode& node) { return Filled(ctx, node, 1); });
  r.Register(K::kFunction, "aten.full_like.default", [](FxContext& ctx, const proto::FxNode& node) {
    return Filled(ctx, node, NumberArg(node, 1, "fill_value", 0));
  });
  r.Register(K::kFunction, "aten.full.default", [](FxContext& ctx, const proto::FxNode& node) {
    return Filled(ctx, node, NumberArg(node, 1, "fill_value", 0));
  });
  r.Register(K::kFunction, "aten.scalar_tensor.default",
             [](FxContext& ctx, const proto::FxNode& node) { return Filled(ctx, node, NumberArg(node, 0, "s", 0)); });
  for (const char* arange : {"aten.arange.default", "aten.arange.start", "aten.arange.start_step"})
    r.Register(K::kFunction, arange, Arange);
  for (const char* view :
       {"aten.unsqueeze.default", "aten.squeeze.dim", "aten.squeeze.default", "aten.flatten.using_ints"}) {
    r.Register(K::kFunction, view, RecordedReshape);
  }
  r.Register(K::kFunction, "aten.rsub.Scalar", Rsub);
  r.Register(K::kFunction, "aten.where.self", Where);
  r.Register(K::kFunction, "aten.embedding.default", Embedding);
  r.Register(K::kFunction, "aten.index.Tensor", Index);
  r.Register(K::kFunction, "aten.roll.default", Roll);
  r.Register(K::kFunction, "aten.fill.Tensor", FillTensor);
  r.Register(K::kFunction, "aten.fill.Scalar", [](FxContext& ctx, const proto::FxNode& node) {
    return Filled(ctx, node, NumberArg(node, 1, "value", 0));
  });
  r.Register(K::kFunction, "aten.slice_scatter.default", SliceScatter);
  r.Register(K::kFunction, "aten.clamp.default", Activation(Clamp));
  r.Register(K::kFunction, "aten._to_copy.default", ToCopy);
  r.Register(K::kFunction, "aten.upsample_nearest2d.vec", Interpolate("nearest"));
  r.Register(K::kFunction, "aten.upsample_bilinear2d.vec", Interpolate("bilinear"));
  r.Register(K::kFunction, "aten.upsample_bicubic2d.vec", Interpolate("bicubic"));
  if (const FxConverter* pad = r.Find(K::kFunction, "torch.nn.functional.pad")) {
    // constant_pad_nd(x, pad, value) is F.pad(x, pad, "constant", value).
    r.Register(K::kFunction, "aten.constant_pad_nd.default", [pad = *pad](FxContext& ctx, const proto::FxNode& node) {
      proto::FxNode as_pad = node;
      as_pad.mutable_args()->DeleteSubrange(std::min(2, as_pad.args_size()), std::max(0, as_pad.args_size() - 2));
      as_pad.add_args()->set_s("constant");
      as_pad.add_args()->set_f(NumberArg(node, 2, "value", 0.0));
      return pad(ctx, as_pad);
    });
  }
}

}  // namespace fx
}  // namespace mlc
