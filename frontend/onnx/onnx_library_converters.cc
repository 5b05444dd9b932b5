/*! \file onnx_library_converters.cc
 *  \brief ONNX operators that run as runtime library functions (vm/library/), because no loop
 *         program of one output element per iteration expresses them: TopK (a selection),
 *         ScatterElements / ScatterND and MaxUnpool (writes at computed positions), Det (an
 *         elimination), RoiAlign (sample points computed per RoI and read by every channel), and
 *         NonZero, Unique and NonMaxSuppression (results whose sizes the input's values decide).
 *
 *  Each becomes R.call_dps_packed of the function with the outputs' struct info, or, for results
 *  of data-dependent size, R.call_pure_packed (the function allocates them) followed by an
 *  R.match_cast that names each such size by a new shape variable (`<output>_count`), as TVM's
 *  Relax does; what follows computes with it like with any symbolic dimension. The operator's
 *  attributes travel as a constant int64 params tensor, the functions' last input.
 */
#include "frontend/onnx/converter_util.h"

namespace mlc {
namespace onnx_import {
namespace {

/*! \brief call_dps_packed(name, args) with one output per struct info, as values. */
Outputs CallLibrary(OnnxContext& ctx, const std::string& name, std::vector<relax::Expr> args,
                    std::vector<relax::StructInfo> outs) {
  relax::StructInfo sinfo = outs.size() == 1 ? outs[0] : relax::TupleSInfo(outs);
  absl::StatusOr<relax::Expr> call =
      ctx.EmitOp("call_dps_packed", {relax::MakeExternFunc(name), relax::MakeTuple(std::move(args))}, {}, {sinfo});
  if (!call.ok()) return call.status();
  if (outs.size() == 1) return std::vector<relax::Expr>{*call};
  std::vector<relax::Expr> values;
  for (size_t i = 0; i < outs.size(); ++i) {
    absl::StatusOr<relax::Expr> item = relax::MakeTupleGetItem(*call, static_cast<int>(i));
    if (!item.ok()) return item.status();
    absl::StatusOr<relax::Var> v = ctx.bb().Emit(*item);
    if (!v.ok()) return v.status();
    values.push_back(*v);
  }
  return values;
}

relax::Expr Params(const std::vector<int64_t>& values) { return relax::MakeConstant(Int64Tensor(values)); }

/*! \brief Det: the determinants of the input's trailing square matrices (mlc.det). */
Outputs Det(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> xs = StaticShape(*x, "Det's input");
  if (!xs.ok()) return xs.status();
  if (xs->size() < 2 || (*xs)[xs->size() - 1] != (*xs)[xs->size() - 2]) {
    return absl::InvalidArgumentError(
        absl::StrCat("Det needs square matrices in the last two axes, got ", relax::ShapeToString(*xs)));
  }
  return CallLibrary(ctx, "mlc.det", {*x},
                     {relax::TensorSInfo(std::vector<int64_t>(xs->begin(), xs->end() - 2), TensorOf(*x)->dtype)});
}

/*! \brief MaxUnpool: zeros of the unpooled shape (what kernel_shape, strides and pads give), each
 *  value written at its index, which counts over that whole flattened shape as MaxPool's Indices
 *  do (one mlc.scatter_elements over the flattened tensors); a larger output_shape pads the
 *  result with zeros at the end of each spatial axis, as ONNX Runtime does. */
Outputs MaxUnpool(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> indices = ctx.Input(node, 1);
  if (!indices.ok()) return indices.status();
  absl::StatusOr<std::vector<int64_t>> xs = StaticShape(*x, "MaxUnpool's input");
  if (!xs.ok()) return xs.status();
  if (xs->size() < 3)
    return absl::InvalidArgumentError("MaxUnpool needs an input of rank 3 or more (N, C, spatial axes)");
  const size_t spatial = xs->size() - 2;
  const std::vector<int64_t> kernel = ctx.IntsAttr(node, "kernel_shape"), pads = ctx.IntsAttr(node, "pads");
  std::vector<int64_t> strides = ctx.IntsAttr(node, "strides");
  if (strides.empty()) strides.assign(spatial, 1);
  if (kernel.size() != spatial || strides.size() != spatial || (!pads.empty() && pads.size() != 2 * spatial)) {
    return absl::InvalidArgumentError("kernel_shape, strides and pads must have one entry per spatial axis (pads two)");
  }
  std::vector<int64_t> unpooled = {(*xs)[0], (*xs)[1]};
  for (size_t d = 0; d < spatial; ++d) {
    const int64_t padding = pads.empty() ? 0 : pads[d] + pads[d + spatial];
    unpooled.push_back(((*xs)[d + 2] - 1) * strides[d] + kernel[d] - padding);
  }
  std::vector<int64_t> out = unpooled;
  if (ctx.HasInput(node, 2)) {
    absl::StatusOr<std::vector<int64_t>> shape = ctx.ConstantInts(node, 2, "output_shape");
    if (!shape.ok()) return shape.status();
    out = *shape;
  }
  bool fits = out.size() == unpooled.size() && out[0] == unpooled[0] && out[1] == unpooled[1];
  for (size_t d = 2; fits && d < out.size(); ++d) fits = out[d] >= unpooled[d];
  if (!fits) {
    return absl::InvalidArgumentError(absl::StrCat("output_shape ", relax::ShapeToString(out),
                                                   " is smaller than the unpooled shape ",
                                                   relax::ShapeToString(unpooled), " or differs in N or C"));
  }
  int64_t n = 1, total = 1;
  for (int64_t d : *xs) n *= d;
  for (int64_t d : unpooled) total *= d;
  const DataType dtype = TensorOf(*x)->dtype;
  absl::StatusOr<relax::Expr> zeros =
      ctx.EmitOp("broadcast_to", {Scalar(0, dtype)}, {{"shape", std::vector<int64_t>{total}}});
  absl::StatusOr<relax::Expr> flat_x = ctx.EmitOp("reshape", {*x}, {{"shape", std::vector<int64_t>{n}}});
  absl::StatusOr<relax::Expr> flat_i = ctx.EmitOp("reshape", {*indices}, {{"shape", std::vector<int64_t>{n}}});
  for (const absl::StatusOr<relax::Expr>* e : {&zeros, &flat_x, &flat_i}) {
    if (!e->ok()) return e->status();
  }
  Outputs scattered = CallLibrary(ctx, "mlc.scatter_elements", {*zeros, *flat_i, *flat_x, Params({0, 0})},
                                  {relax::TensorSInfo({total}, dtype)});
  if (!scattered.ok()) return scattered.status();
  absl::StatusOr<relax::Expr> y = ctx.EmitOp("reshape", {scattered->front()}, {{"shape", unpooled}});
  if (!y.ok() || out == unpooled) return One(y);
  std::vector<int64_t> width;
  for (size_t d = 0; d < out.size(); ++d) width.insert(width.end(), {0, out[d] - unpooled[d]});
  return One(
      ctx.EmitOp("nn.pad", {*y}, {{"pad_width", width}, {"pad_value", 0.0}, {"pad_mode", std::string("constant")}}));
}

std::vector<tir::PrimExpr> Dims(const std::vector<int64_t>& shape) {
  std::vector<tir::PrimExpr> dims;
  for (int64_t d : shape) dims.push_back(tir::I64(d));
  return dims;
}

/*! \brief NonZero: int64 [rank, count], the indices of the non-zero elements. */
Outputs NonZero(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  const relax::TensorStructInfoNode* t = TensorOf(*x);
  if (t == nullptr || t->ndim < 0) return absl::InvalidArgumentError("NonZero's input must be a tensor of known rank");
  return CallAllocating(ctx, "mlc.nonzero", {*x}, {{DataType::Int64(), {tir::I64(t->ndim), CountVar(node)}}});
}

/*! \brief Unique: the distinct elements (or slices along `axis`), sorted or in first-occurrence
 *  order, with the indices of their first occurrences, each input's place and the counts. */
Outputs Unique(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> xs = StaticShape(*x, "Unique's input");
  if (!xs.ok()) return xs.status();
  const int64_t rank = static_cast<int64_t>(xs->size());
  const bool has_axis = ctx.HasAttr(node, "axis");
  int64_t axis = ctx.IntAttr(node, "axis", 0);
  if (has_axis && axis < 0) axis += rank;
  if (has_axis && (axis < 0 || axis >= rank))
    return absl::InvalidArgumentError(absl::StrCat("axis ", ctx.IntAttr(node, "axis", 0), " is out of range"));
  tir::PrimExpr m = CountVar(node);
  std::vector<tir::PrimExpr> y = {m};
  int64_t n = 1;
  for (int64_t d : *xs) n *= d;
  if (has_axis) {
    y = Dims(*xs);
    y[axis] = m;
    n = (*xs)[axis];
  }
  const DataType i64 = DataType::Int64();
  return CallAllocating(ctx, "mlc.unique", {*x, Params({has_axis ? 1 : 0, axis, ctx.IntAttr(node, "sorted", 1)})},
                        {{TensorOf(*x)->dtype, y}, {i64, {m}}, {i64, {tir::I64(n)}}, {i64, {m}}});
}

/*! \brief NonMaxSuppression: int64 [count, 3] rows (batch, class, box). Absent optional inputs:
 *  no box (max_output_boxes_per_class 0), IOU threshold 0, no score filter. */
Outputs NonMaxSuppression(OnnxContext& ctx, const onnx::NodeProto& node) {
  std::vector<relax::Expr> args;
  for (int i = 0; i < 2; ++i) {
    absl::StatusOr<relax::Expr> v = ctx.Input(node, i);
    if (!v.ok()) return v.status();
    args.push_back(*v);
  }
  const TensorData defaults[] = {ScalarTensor(0, DataType::Int64()), ScalarTensor(0, DataType::Float32()),
                                 ScalarTensor(0, DataType::Float32())};
  for (int i = 2; i < 5; ++i) {
    if (!ctx.HasInput(node, i)) {
      args.push_back(relax::MakeConstant(defaults[i - 2]));
      continue;
    }
    absl::StatusOr<relax::Expr> v = ctx.Input(node, i);
    if (!v.ok()) return v.status();
    args.push_back(*v);
  }
  args.push_back(Params({ctx.IntAttr(node, "center_point_box", 0), ctx.HasInput(node, 4) ? 1 : 0}));
  return CallAllocating(ctx, "mlc.non_max_suppression", std::move(args),
                        {{DataType::Int64(), {CountVar(node), tir::I64(3)}}});
}

/*! \brief The reduction attribute as the library's code: none 0, add 1, mul 2, max 3, min 4. */
absl::StatusOr<int64_t> Reduction(const OnnxContext& ctx, const onnx::NodeProto& node) {
  const std::string r = ctx.StringAttr(node, "reduction", "none");
  const char* names[] = {"none", "add", "mul", "max", "min"};
  for (int64_t i = 0; i < 5; ++i) {
    if (r == names[i]) return i;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown reduction '", r, "' (none, add, mul, max, min)"));
}

/*! \brief TopK: the k largest (or smallest) along `axis`, always sorted (sorted=0 leaves the
 *  order to the implementation). K must be a constant. */
Outputs TopK(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  const relax::TensorStructInfoNode* t = TensorOf(*x);
  if (t == nullptr || !t->HasKnownShape())
    return absl::InvalidArgumentError("TopK's input needs a known shape (static or symbolic)");
  std::vector<tir::PrimExpr> dims = t->Dims();
  // K: a constant, or a size computed from shapes (detectors take min(count, limit) of boxes
  // whose count the data decide); the function reads it from its outputs' shape.
  std::optional<ShapeValue> k = ctx.ShapeValueInput(node, 1);
  if (!k || k->elements.size() != 1)
    return absl::InvalidArgumentError("K must be one value, a constant or computed from shapes");
  const int64_t rank = static_cast<int64_t>(dims.size());
  int64_t axis = ctx.IntAttr(node, "axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank)
    return absl::InvalidArgumentError(absl::StrCat("axis ", ctx.IntAttr(node, "axis", -1), " is out of range"));
  const int64_t* k_value = tir::AsConstInt(k->elements[0]);
  const int64_t* n = tir::AsConstInt(dims[axis]);
  if (k_value != nullptr && (*k_value < 0 || (n != nullptr && *k_value > *n))) {
    return absl::InvalidArgumentError(
        absl::StrCat("K must be in 0..", n != nullptr ? absl::StrCat(*n) : "the axis's size"));
  }
  std::vector<tir::PrimExpr> out = dims;
  out[axis] = k->elements[0];
  return CallLibrary(ctx, "mlc.topk", {*x, Params({axis, ctx.IntAttr(node, "largest", 1)})},
                     {relax::TensorSInfoOfDims(out, t->dtype), relax::TensorSInfoOfDims(out, DataType::Int64())});
}

/*! \brief RoiAlign (opsets 10 and 16) as ONNX Runtime computes it (mlc.roi_align): the RoIs'
 *  count may be symbolic (a detector's proposals after NMS), the sampling grid adaptive
 *  (sampling_ratio 0: sized per RoI when the model runs). Opset 16's half_pixel coordinates are
 *  its default; opset 10 behaves as output_half_pixel. */
Outputs RoiAlign(OnnxContext& ctx, const onnx::NodeProto& node) {
  std::vector<relax::Expr> in;
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<relax::Expr> v = ctx.Input(node, i);
    if (!v.ok()) return v.status();
    in.push_back(*v);
  }
  absl::StatusOr<std::vector<int64_t>> xs = StaticShape(in[0], "RoiAlign's input");
  if (!xs.ok()) return xs.status();
  const relax::TensorStructInfoNode* rt = TensorOf(in[1]);
  const relax::TensorStructInfoNode* bt = TensorOf(in[2]);
  if (xs->size() != 4 || rt == nullptr || !rt->HasKnownShape() || rt->ndim != 2 || !tir::IsConstInt(rt->Dims()[1], 4))
    return absl::InvalidArgumentError("RoiAlign takes an (N, C, H, W) input and (R, 4) rois");
  if (TensorOf(in[0])->dtype != DataType::Float32() || rt->dtype != DataType::Float32())
    return absl::UnimplementedError("RoiAlign: only float32 inputs and rois are supported");
  if (bt == nullptr || (bt->dtype != DataType::Int64() && bt->dtype != DataType::Int32()))
    return absl::InvalidArgumentError("RoiAlign's batch_indices must be int64 (or int32)");
  const std::string mode = ctx.StringAttr(node, "mode", "avg");
  if (mode != "avg" && mode != "max")
    return absl::InvalidArgumentError(absl::StrCat("unknown mode '", mode, "' (avg or max)"));
  const std::string transform =
      ctx.StringAttr(node, "coordinate_transformation_mode", ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel");
  if (transform != "half_pixel" && transform != "output_half_pixel")
    return absl::InvalidArgumentError(absl::StrCat("unknown coordinate_transformation_mode '", transform, "'"));
  const int64_t grid = ctx.IntAttr(node, "sampling_ratio", 0);
  const int64_t ph = ctx.IntAttr(node, "output_height", 1), pw = ctx.IntAttr(node, "output_width", 1);
  if (grid < 0 || ph < 1 || pw < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("RoiAlign needs sampling_ratio >= 0 and output sizes >= 1, got ", grid, ", ", ph, " x ", pw));
  }
  const double scale = ctx.FloatAttr(node, "spatial_scale", 1.0f);
  in.push_back(Params({mode == "max", transform == "half_pixel", grid}));
  in.push_back(relax::MakeConstant(TensorFromDoubles(DataType::Float32(), {1}, {scale})));
  std::vector<tir::PrimExpr> out = {rt->Dims()[0], tir::I64((*xs)[1]), tir::I64(ph), tir::I64(pw)};
  return CallLibrary(ctx, "mlc.roi_align", in, {relax::TensorSInfoOfDims(out, DataType::Float32())});
}

OnnxConverter Scatter(bool nd) {
  return [nd](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    std::vector<relax::Expr> in;
    std::vector<std::vector<tir::PrimExpr>> shapes;
    for (int i = 0; i < 3; ++i) {
      absl::StatusOr<relax::Expr> v = ctx.Input(node, i);
      if (!v.ok()) return v.status();
      const relax::TensorStructInfoNode* t = TensorOf(*v);
      if (t == nullptr || !t->HasKnownShape())
        return absl::InvalidArgumentError(absl::StrCat("scatter operand ", i, " needs a known rank"));
      in.push_back(*v);
      shapes.push_back(t->Dims());
    }
    // Sizes may be symbolic (rows a detector's data select): those the runtime function checks
    // when it runs; here, the ranks and the sizes known now.
    auto fit = [](const std::vector<tir::PrimExpr>& a, const std::vector<tir::PrimExpr>& b) {
      if (a.size() != b.size()) return false;
      for (size_t i = 0; i < a.size(); ++i) {
        const int64_t *x = tir::AsConstInt(a[i]), *y = tir::AsConstInt(b[i]);
        if (x != nullptr && y != nullptr && *x != *y) return false;
      }
      return true;
    };
    auto text = [](const std::vector<tir::PrimExpr>& dims) { return relax::DimsToString(dims); };
    const std::vector<tir::PrimExpr>&data = shapes[0], &indices = shapes[1], &updates = shapes[2];
    if (nd) {
      const int64_t* last = indices.empty() ? nullptr : tir::AsConstInt(indices.back());
      if (last == nullptr || *last < 1 || *last > static_cast<int64_t>(data.size()))
        return absl::InvalidArgumentError("ScatterND's indices need a constant last dimension of 1 to data's rank");
      std::vector<tir::PrimExpr> want(indices.begin(), indices.end() - 1);
      want.insert(want.end(), data.begin() + *last, data.end());
      if (!fit(updates, want)) {
        return absl::InvalidArgumentError(
            absl::StrCat("indices ", text(indices), " and updates ", text(updates), " do not fit data ", text(data)));
      }
    } else if (!fit(indices, updates) || indices.size() != data.size()) {
      return absl::InvalidArgumentError(absl::StrCat("indices ", text(indices), " and updates ", text(updates),
                                                     " must share a shape of data's rank ", data.size()));
    }
    absl::StatusOr<int64_t> reduction = Reduction(ctx, node);
    if (!reduction.ok()) return reduction.status();
    in.push_back(nd ? Params({*reduction}) : Params({ctx.IntAttr(node, "axis", 0), *reduction}));
    return CallLibrary(ctx, nd ? "mlc.scatter_nd" : "mlc.scatter_elements", in, {in[0]->struct_info()});
  };
}

}  // namespace

Outputs CallAllocating(OnnxContext& ctx, const std::string& name, std::vector<relax::Expr> args,
                       const std::vector<AllocatedResult>& outs) {
  std::vector<relax::StructInfo> ranks;
  for (const AllocatedResult& r : outs)
    ranks.push_back(relax::TensorSInfoUnknownShape(r.dtype, static_cast<int>(r.dims.size())));
  relax::StructInfo sinfo = outs.size() == 1 ? ranks[0] : relax::TupleSInfo(ranks);
  absl::StatusOr<relax::Expr> call =
      ctx.EmitOp("call_pure_packed", {relax::MakeExternFunc(name), relax::MakeTuple(std::move(args))}, {}, {sinfo});
  if (!call.ok()) return call.status();
  std::vector<relax::Expr> values;
  for (size_t i = 0; i < outs.size(); ++i) {
    relax::Expr item = *call;
    if (outs.size() > 1) {
      absl::StatusOr<relax::Expr> got = relax::MakeTupleGetItem(*call, static_cast<int>(i));
      if (!got.ok()) return got.status();
      absl::StatusOr<relax::Var> v = ctx.bb().Emit(*got);
      if (!v.ok()) return v.status();
      item = *v;
    }
    absl::StatusOr<relax::Expr> named =
        ctx.EmitOp("match_cast", {item}, {}, {relax::TensorSInfoOfDims(outs[i].dims, outs[i].dtype)});
    if (!named.ok()) return named.status();
    values.push_back(*named);
  }
  return values;
}

tir::PrimExpr CountVar(const onnx::NodeProto& node) {
  return tir::MakeVar(SanitizeIdentifier(node.output(0)) + "_count", DataType::Int64());
}

std::string OutputDimName(const onnx::NodeProto& node, int64_t k) {
  return absl::StrCat(SanitizeIdentifier(node.output(0)), "_d", k);
}

std::vector<tir::PrimExpr> OutputDimVars(const onnx::NodeProto& node, int64_t rank) {
  std::vector<tir::PrimExpr> dims;
  for (int64_t k = 0; k < rank; ++k) dims.push_back(tir::MakeVar(OutputDimName(node, k), DataType::Int64()));
  return dims;
}

void RegisterLibraryOnnxConverters(OnnxConverterRegistry& r) {
  r.Register("TopK", TopK);
  r.Register("ScatterElements", Scatter(/*nd=*/false));
  r.Register("Scatter", Scatter(/*nd=*/false));  // opsets 9-10: ScatterElements by its old name
  r.Register("ScatterND", Scatter(/*nd=*/true));
  r.Register("Det", Det);
  r.Register("MaxUnpool", MaxUnpool);
  r.Register("NonZero", NonZero);
  r.Register("Unique", Unique);
  r.Register("NonMaxSuppression", NonMaxSuppression);
  r.Register("RoiAlign", RoiAlign);
}

}  // namespace onnx_import
}  // namespace mlc
