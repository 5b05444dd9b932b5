/*! \file onnx_sequence_converters.cc
 *  \brief ONNX sequences as lists known at import time.
 *
 *  Exporters write a Python list, `torch.tensor_split` or `torch.split` of a scripted function
 *  as ONNX sequence operators, often filled by a Loop of constant trip count (torchvision's
 *  MViT: SequenceEmpty, a Loop that inserts one slice, SequenceInsert, SequenceAt). Every
 *  position and split is a constant there, so a sequence is the list of its tensors, held by the
 *  importer as a relax Tuple expression that is never emitted (IsSequence): SequenceAt picks an
 *  element, ConcatFromSequence emits one concat, and the Loop that builds one is unrolled
 *  (onnx_control_flow_converters.cc). A position that is not a constant, or a sequence as a
 *  graph input, is an error that says so.
 */
#include <algorithm>

#include "frontend/onnx/converter_util.h"

namespace mlc {
namespace onnx_import {
namespace {

/*! \brief The tensors of the sequence that is input i. */
absl::StatusOr<std::vector<relax::Expr>> SequenceInput(OnnxContext& ctx, const onnx::NodeProto& node, int i) {
  absl::StatusOr<relax::Expr> v = ctx.Input(node, i);
  if (!v.ok()) return v.status();
  const relax::TupleNode* seq = AsSequence(*v);
  if (seq == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("input ", i, " (", node.input(i), ") is not a sequence, but ",
                                                   relax::StructInfoToString((*v)->struct_info())));
  }
  return seq->fields;
}

/*! \brief The position that is input i, a constant scalar, checked against `size` (the
 *  sequence's length; positions from -size to size - 1 read an element, or to `size` with
 *  `end_allowed`: SequenceInsert's), as a position from the front. */
absl::StatusOr<int64_t> Position(OnnxContext& ctx, const onnx::NodeProto& node, int i, int64_t size, bool end_allowed) {
  absl::StatusOr<std::vector<int64_t>> at = ctx.ConstantInts(node, i, "the position");
  if (!at.ok()) {
    return absl::UnimplementedError(
        absl::StrCat(at.status().message(), ": sequences are lists known at import, so their positions must be too"));
  }
  if (at->size() != 1) return absl::InvalidArgumentError("the position must be a scalar");
  const int64_t p = (*at)[0] < 0 ? (*at)[0] + size : (*at)[0];
  if (p < 0 || p > size || (p == size && !end_allowed)) {
    return absl::InvalidArgumentError(
        absl::StrCat("position ", (*at)[0], " is outside a sequence of ", size, " tensors"));
  }
  return p;
}

Outputs SequenceEmpty(OnnxContext&, const onnx::NodeProto&) { return std::vector<relax::Expr>{MakeSequence({})}; }

Outputs SequenceConstruct(OnnxContext& ctx, const onnx::NodeProto& node) {
  std::vector<relax::Expr> items;
  for (int i = 0; i < node.input_size(); ++i) {
    absl::StatusOr<relax::Expr> x = ctx.Input(node, i);
    if (!x.ok()) return x.status();
    items.push_back(*x);
  }
  return std::vector<relax::Expr>{MakeSequence(std::move(items))};
}

Outputs SequenceInsert(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<std::vector<relax::Expr>> items = SequenceInput(ctx, node, 0);
  if (!items.ok()) return items.status();
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 1);
  if (!x.ok()) return x.status();
  const int64_t size = static_cast<int64_t>(items->size());
  int64_t at = size;
  if (ctx.HasInput(node, 2)) {
    absl::StatusOr<int64_t> p = Position(ctx, node, 2, size, /*end_allowed=*/true);
    if (!p.ok()) return p.status();
    at = *p;
  }
  items->insert(items->begin() + at, *x);
  return std::vector<relax::Expr>{MakeSequence(std::move(*items))};
}

Outputs SequenceAt(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<std::vector<relax::Expr>> items = SequenceInput(ctx, node, 0);
  if (!items.ok()) return items.status();
  absl::StatusOr<int64_t> p = Position(ctx, node, 1, static_cast<int64_t>(items->size()), /*end_allowed=*/false);
  if (!p.ok()) return p.status();
  return std::vector<relax::Expr>{(*items)[*p]};
}

Outputs SequenceErase(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<std::vector<relax::Expr>> items = SequenceInput(ctx, node, 0);
  if (!items.ok()) return items.status();
  const int64_t size = static_cast<int64_t>(items->size());
  if (size == 0) return absl::InvalidArgumentError("erases from an empty sequence");
  int64_t at = size - 1;
  if (ctx.HasInput(node, 1)) {
    absl::StatusOr<int64_t> p = Position(ctx, node, 1, size, /*end_allowed=*/false);
    if (!p.ok()) return p.status();
    at = *p;
  }
  items->erase(items->begin() + at);
  return std::vector<relax::Expr>{MakeSequence(std::move(*items))};
}

Outputs SequenceLength(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<std::vector<relax::Expr>> items = SequenceInput(ctx, node, 0);
  if (!items.ok()) return items.status();
  return std::vector<relax::Expr>{Scalar(static_cast<double>(items->size()), DataType::Int64())};
}

/*! \brief ConcatFromSequence: the tensors joined along `axis`, or stacked along a new one
 *  (new_axis 1, where axis may also be the rank: after the last). */
Outputs ConcatFromSequence(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<std::vector<relax::Expr>> items = SequenceInput(ctx, node, 0);
  if (!items.ok()) return items.status();
  if (items->empty()) return absl::InvalidArgumentError("concatenates an empty sequence");
  if (!ctx.HasAttr(node, "axis")) return absl::InvalidArgumentError("needs the attribute axis");
  const bool new_axis = ctx.IntAttr(node, "new_axis", 0) != 0;
  const relax::TensorStructInfoNode* first = TensorOf(items->front());
  if (first == nullptr || first->ndim < 0)
    return absl::InvalidArgumentError("the sequence's tensors need a known rank");
  const int64_t rank = first->ndim + (new_axis ? 1 : 0);
  int64_t axis = ctx.IntAttr(node, "axis", 0);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank)
    return absl::InvalidArgumentError(absl::StrCat("axis ", ctx.IntAttr(node, "axis", 0), " out of range"));
  std::vector<relax::Expr> parts;
  for (const relax::Expr& x : *items) {
    if (!new_axis) {
      parts.push_back(x);
      continue;
    }
    const relax::TensorStructInfoNode* t = TensorOf(x);
    if (t == nullptr || !t->HasKnownShape()) return absl::UnimplementedError("stacking tensors of unknown shape");
    std::vector<tir::PrimExpr> dims = t->Dims();
    dims.insert(dims.begin() + axis, tir::I64(1));
    absl::StatusOr<relax::Expr> part = Reshaped(ctx, x, dims);
    if (!part.ok()) return part.status();
    parts.push_back(*part);
  }
  if (parts.size() == 1) return parts;
  return One(ctx.EmitOp("concat", parts, {{"axis", axis}}));
}

/*! \brief SplitToSequence: slices along `axis` of the sizes `split` gives (a scalar: pieces of
 *  that size, the last one shorter; a list: those sizes), or of size 1 without it (the axis
 *  dropped unless keepdims). */
Outputs SplitToSequence(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  const relax::TensorStructInfoNode* t = TensorOf(*x);
  if (t == nullptr || !t->HasKnownShape()) return absl::UnimplementedError("needs an input of known shape");
  int64_t axis = ctx.IntAttr(node, "axis", 0);
  if (axis < 0) axis += t->ndim;
  if (axis < 0 || axis >= t->ndim)
    return absl::InvalidArgumentError(absl::StrCat("axis ", ctx.IntAttr(node, "axis", 0), " out of range"));
  const std::vector<tir::PrimExpr> dims = t->Dims();
  const int64_t* length = tir::AsConstInt(dims[axis]);
  if (length == nullptr)
    return absl::UnimplementedError(
        absl::StrCat("splits axis ", axis, " of an input of symbolic shape ", relax::DimsToString(dims)));
  std::vector<int64_t> sizes;
  bool drop_axis = false;
  if (ctx.HasInput(node, 1)) {
    const TensorData* split = ctx.ConstantInput(node, 1);
    absl::StatusOr<std::vector<int64_t>> given = ctx.ConstantInts(node, 1, "split");
    if (!given.ok()) return given.status();
    if (split->shape().empty()) {
      const int64_t piece = given->front();
      if (piece <= 0) return absl::InvalidArgumentError(absl::StrCat("split ", piece, " is not positive"));
      for (int64_t begin = 0; begin < *length; begin += piece) sizes.push_back(std::min(piece, *length - begin));
    } else {
      sizes = *given;
    }
  } else {
    sizes.assign(*length, 1);
    drop_axis = ctx.IntAttr(node, "keepdims", 1) == 0;
  }
  for (const int64_t size : sizes) {
    if (size < 0) return absl::InvalidArgumentError(absl::StrCat("split size ", size, " is negative"));
  }
  absl::StatusOr<std::vector<relax::Expr>> items = SplitAlong(ctx, *x, axis, sizes, *length);
  if (!items.ok()) return items.status();
  if (drop_axis) {
    std::vector<tir::PrimExpr> kept = dims;
    kept.erase(kept.begin() + axis);
    for (relax::Expr& item : *items) {
      absl::StatusOr<relax::Expr> dropped = Reshaped(ctx, item, kept);
      if (!dropped.ok()) return dropped.status();
      item = *dropped;
    }
  }
  return std::vector<relax::Expr>{MakeSequence(*std::move(items))};
}

}  // namespace

void RegisterSequenceOnnxConverters(OnnxConverterRegistry& r) {
  r.Register("SequenceEmpty", SequenceEmpty);
  r.Register("SequenceConstruct", SequenceConstruct);
  r.Register("SequenceInsert", SequenceInsert);
  r.Register("SequenceAt", SequenceAt);
  r.Register("SequenceErase", SequenceErase);
  r.Register("SequenceLength", SequenceLength);
  r.Register("ConcatFromSequence", ConcatFromSequence);
  r.Register("SplitToSequence", SplitToSequence);
}

}  // namespace onnx_import
}  // namespace mlc
