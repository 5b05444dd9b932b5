/*! \file onnx_shape_values.cc
 *  \brief Shape subgraphs over symbolic dimensions, evaluated at import time.
 *
 *  Exporters compute reshape targets from the input's shape: Shape -> Gather -> (Mul, Div)
 *  -> Unsqueeze -> Concat -> Reshape. With a static input the chain is constant and folds
 *  (OnnxContext::EmitOp); with a symbolic one its elements are shape expressions of main's
 *  shape variables (`seq`, `batch * 4`), carried here as ShapeValues until a consumer (Reshape)
 *  turns them into struct info. No run-time shape tensor is made.
 */
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "frontend/common/size_value.h"
#include "frontend/onnx/converter_util.h"
#include "frontend/onnx/onnx_importer.h"
#include "ir/graph/shape_util.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"

namespace mlc {
namespace onnx_import {
namespace {

using tir::PrimExpr;

/*! \brief Whether every element is a constant; then the value is an ordinary tensor. */
bool AllConstant(const ShapeValue& v) {
  for (const PrimExpr& e : v.elements) {
    if (tir::AsConstInt(e) == nullptr) return false;
  }
  return true;
}

relax::Expr ToConstant(const ShapeValue& v) {
  std::vector<int64_t> values;
  for (const PrimExpr& e : v.elements) values.push_back(*tir::AsConstInt(e));
  std::vector<int64_t> shape;
  if (!v.scalar) shape.push_back(static_cast<int64_t>(values.size()));
  if (v.boolean) {
    TensorData t(DataType::Bool(), shape);
    for (size_t i = 0; i < values.size(); ++i) static_cast<uint8_t*>(t.mutable_data())[i] = values[i] != 0;
    return relax::MakeConstant(t);
  }
  TensorData t = Int64Tensor(values);
  return relax::MakeConstant(TensorData(DataType::Int64(), shape, t.bytes()));
}

/*! \brief a == b, a < b or a > b of two dimensions: 1 or 0, or nullopt when it depends on the
 *  sizes (a dimension is never negative, so `n == -1`, which exporters test, is decided). */
std::optional<int64_t> CompareDims(const PrimExpr& a, const PrimExpr& b, const std::string& op) {
  const int64_t* x = tir::AsConstInt(a);
  const int64_t* y = tir::AsConstInt(b);
  if (x != nullptr && y != nullptr) return op == "Equal" ? *x == *y : op == "Less" ? *x < *y : *x > *y;
  if (op == "Equal" && relax::DimsEqual(a, b)) return 1;
  // One side symbolic (>= 0) against a negative constant.
  if (y != nullptr && *y < 0) return op == "Greater" ? 1 : 0;
  if (x != nullptr && *x < 0) return op == "Less" ? 1 : 0;
  return std::nullopt;
}

/*! \brief Elementwise a op b with broadcasting of a scalar (or one-element) side. */
absl::StatusOr<ShapeValue> Elementwise(const ShapeValue& a, const ShapeValue& b, const std::string& op) {
  size_t n = std::max(a.elements.size(), b.elements.size());
  if (a.elements.size() != n && a.elements.size() != 1)
    return absl::InvalidArgumentError("shape arithmetic: lengths differ");
  if (b.elements.size() != n && b.elements.size() != 1)
    return absl::InvalidArgumentError("shape arithmetic: lengths differ");
  ShapeValue out;
  out.scalar = a.scalar && b.scalar;
  tir::Analyzer analyzer;
  for (size_t i = 0; i < n; ++i) {
    PrimExpr x = a.elements[a.elements.size() == 1 ? 0 : i], y = b.elements[b.elements.size() == 1 ? 0 : i];
    PrimExpr r;
    if (op == "Add")
      r = tir::operator+(x, y);
    else if (op == "Sub")
      r = tir::operator-(x, y);
    else if (op == "Mul")
      r = tir::operator*(x, y);
    else
      r = tir::FloorDiv(x, y);  // Div of non-negative integers (dimensions) truncates = floors
    out.elements.push_back(analyzer.Simplify(r));
  }
  return out;
}

}  // namespace

absl::StatusOr<relax::Expr> OnnxContext::SizeAsTensor(const tir::PrimExpr& size) {
  return frontend::SizeAsTensor(frontend::EmitterOf(*this), values_, size);
}

absl::StatusOr<relax::Expr> OnnxContext::SizeRange(const tir::PrimExpr& start, const tir::PrimExpr& limit,
                                                   const tir::PrimExpr& step, DataType dtype) {
  return frontend::SizeRange(frontend::EmitterOf(*this), values_, start, limit, step, dtype);
}

absl::StatusOr<relax::Expr> OnnxContext::MaterializedValue(const std::string& name) {
  auto it = shape_values_.find(name);
  if (it == shape_values_.end() || values_.count(name)) return Value(name);
  const ShapeValue shape = it->second;
  absl::StatusOr<relax::Expr> tensor;
  if (shape.scalar) {
    tensor = SizeAsTensor(shape.elements[0]);
  } else {
    std::vector<relax::Expr> elements;
    for (const tir::PrimExpr& e : shape.elements) {
      absl::StatusOr<relax::Expr> t = SizeAsTensor(e);
      if (!t.ok()) return t.status();
      absl::StatusOr<relax::Expr> one = EmitOp("reshape", {*t}, {{"shape", std::vector<int64_t>{1}}});
      if (!one.ok()) return one.status();
      elements.push_back(*one);
    }
    tensor = elements.size() == 1 ? elements[0] : EmitOp("concat", elements, {{"axis", int64_t{0}}});
  }
  if (tensor.ok()) values_[name] = *tensor;  // once; shape arithmetic keeps reading the shape value
  return tensor;
}

bool OnnxContext::IsSymbolicShapeValue(const onnx::NodeProto& node, int i) const {
  return HasInput(node, i) && shape_values_.count(node.input(i)) > 0;
}

std::optional<ShapeValue> OnnxContext::ShapeValueInput(const onnx::NodeProto& node, int i) const {
  if (!HasInput(node, i)) return std::nullopt;
  if (auto it = shape_values_.find(node.input(i)); it != shape_values_.end()) return it->second;
  const TensorData* t = ConstantInput(node, i);
  if (t == nullptr ||
      (t->dtype() != DataType::Int64() && t->dtype() != DataType::Int32() && t->dtype() != DataType::Bool()) ||
      t->shape().size() > 1) {
    return std::nullopt;
  }
  ShapeValue v;
  v.scalar = t->shape().empty();
  v.boolean = t->dtype() == DataType::Bool();
  for (int64_t k = 0; k < t->NumElements(); ++k) {
    int64_t e = v.boolean                         ? static_cast<const uint8_t*>(t->data())[k] != 0
                : t->dtype() == DataType::Int64() ? t->data_as<int64_t>()[k]
                                                  : t->data_as<int32_t>()[k];
    v.elements.push_back(tir::I64(e));
  }
  return v;
}

absl::StatusOr<bool> FoldShapeNode(OnnxContext& ctx, const onnx::NodeProto& node) {
  static const char* const kFoldable[] = {"Gather",   "Unsqueeze", "Squeeze", "Concat", "Slice",     "Cast",
                                          "Identity", "Reshape",   "Add",     "Sub",    "Mul",       "Div",
                                          "Equal",    "Less",      "Greater", "Where",  "ReduceMin", "ReduceMax"};
  const std::string& op = node.op_type();
  if (op == "Shape" && ctx.IsSymbolicShapeValue(node, 0)) {  // of a shape value: its length
    ShapeValue v;
    if (!ctx.ShapeValueInput(node, 0)->scalar)
      v.elements.push_back(tir::I64(static_cast<int64_t>(ctx.ShapeValueInput(node, 0)->elements.size())));
    ctx.SetValue(node.output(0), ToConstant(v));
    return true;
  }
  if (op == "Shape") {
    // Of a tensor with symbolic dimensions: its dims as a shape value (a static shape is
    // left to the converter, which makes it a constant).
    absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
    if (!x.ok()) return x.status();
    const auto* t = TensorOf(*x);
    if (t == nullptr || !t->IsSymbolic()) return false;
    std::vector<PrimExpr> dims = t->Dims();
    int64_t rank = static_cast<int64_t>(dims.size());
    auto clamp = [rank](int64_t a) { return std::clamp<int64_t>(a < 0 ? a + rank : a, 0, rank); };
    int64_t start = clamp(ctx.IntAttr(node, "start", 0)), end = clamp(ctx.IntAttr(node, "end", rank));
    ShapeValue v;
    for (int64_t d = start; d < end; ++d) v.elements.push_back(dims[d]);
    if (AllConstant(v)) {
      ctx.SetValue(node.output(0), ToConstant(v));
    } else {
      ctx.SetShapeValue(node.output(0), v);
    }
    return true;
  }
  if (std::find(std::begin(kFoldable), std::end(kFoldable), op) == std::end(kFoldable)) return false;
  // A tensor reshaped to a shape value is the Reshape converter's (ReshapeToSymbolic).
  if (op == "Reshape" && !ctx.IsSymbolicShapeValue(node, 0)) return false;
  bool symbolic = false;
  std::vector<std::optional<ShapeValue>> in;
  for (int i = 0; i < node.input_size(); ++i) {
    symbolic = symbolic || ctx.IsSymbolicShapeValue(node, i);
    in.push_back(ctx.ShapeValueInput(node, i));
  }
  if (!symbolic) return false;  // ordinary tensors: the converter's business
  // A tensor computed at run time among the inputs (a Slice of a shape by a data-dependent
  // count): the converter's, which reads the shape values as tensors (Input materializes them).
  for (int i = 0; i < node.input_size(); ++i) {
    if (ctx.HasInput(node, i) && !in[i]) return false;
  }
  ShapeValue out;
  if (op == "Identity" || op == "Cast") {
    out = *in[0];
    if (op == "Cast") out.boolean = ctx.IntAttr(node, "to", 0) == 9;  // onnx.TensorProto.BOOL
  } else if (op == "Reshape") {
    // A shape value is a vector (or a scalar): reshaping it to one dimension ([-1] or [n]) keeps
    // its elements; one element reshaped to no dimensions ([]) is a scalar.
    const ShapeValue& target = *in[1];
    out = *in[0];
    if (target.elements.empty() && out.elements.size() == 1) {
      out.scalar = true;
    } else if (target.elements.size() == 1) {
      out.scalar = false;
    } else {
      return absl::UnimplementedError("Reshape of a shape value: to one dimension, or one element to none");
    }
  } else if (op == "Equal" || op == "Less" || op == "Greater") {
    size_t n = std::max(in[0]->elements.size(), in[1]->elements.size());
    out.boolean = true;
    out.scalar = in[0]->scalar && in[1]->scalar;
    for (size_t i = 0; i < n; ++i) {
      const ShapeValue &a = *in[0], &b = *in[1];
      if ((a.elements.size() != n && a.elements.size() != 1) || (b.elements.size() != n && b.elements.size() != 1)) {
        return absl::InvalidArgumentError(absl::StrCat(op, " of shape values: lengths differ"));
      }
      std::optional<int64_t> r =
          CompareDims(a.elements[a.elements.size() == 1 ? 0 : i], b.elements[b.elements.size() == 1 ? 0 : i], op);
      if (!r) return absl::UnimplementedError(absl::StrCat(op, " of shape values depends on the sizes"));
      out.elements.push_back(tir::I64(*r));
    }
  } else if (op == "Where") {
    size_t n = std::max({in[0]->elements.size(), in[1]->elements.size(), in[2]->elements.size()});
    for (const auto& v : in) {
      if (v->elements.size() != n && v->elements.size() != 1)
        return absl::InvalidArgumentError("Where of shape values: lengths differ");
    }
    auto at = [n](const ShapeValue& v, size_t i) { return v.elements[v.elements.size() == 1 ? 0 : i]; };
    for (size_t i = 0; i < n; ++i) {
      const int64_t* c = tir::AsConstInt(at(*in[0], i));
      if (c == nullptr) return absl::UnimplementedError("Where of shape values: the condition depends on the sizes");
      out.elements.push_back(*c != 0 ? at(*in[1], i) : at(*in[2], i));
    }
  } else if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    absl::StatusOr<ShapeValue> r = Elementwise(*in[0], *in[1], op);
    if (!r.ok()) return r.status();
    out = *r;
  } else if (op == "Gather") {
    if (ctx.IntAttr(node, "axis", 0) != 0 || in[0]->scalar)
      return absl::UnimplementedError("Gather on a shape value: axis 0 of a vector only");
    const ShapeValue& idx = *in[1];
    int64_t n = static_cast<int64_t>(in[0]->elements.size());
    out.scalar = idx.scalar;
    for (const PrimExpr& e : idx.elements) {
      const int64_t* k = tir::AsConstInt(e);
      if (k == nullptr) return absl::UnimplementedError("Gather on a shape value: the indices must be constant");
      int64_t i = *k < 0 ? *k + n : *k;
      if (i < 0 || i >= n)
        return absl::InvalidArgumentError(absl::StrCat("Gather index ", *k, " out of range for ", n, " elements"));
      out.elements.push_back(in[0]->elements[i]);
    }
  } else if (op == "Unsqueeze" || op == "Squeeze") {
    // Between a scalar and a one-element vector: the only ranks a shape value has.
    out = *in[0];
    out.scalar = op == "Squeeze";
    if (out.elements.size() != 1)
      return absl::UnimplementedError(absl::StrCat(op, " of a shape value with ", out.elements.size(), " elements"));
  } else if (op == "ReduceMin" || op == "ReduceMax") {
    // Of a vector (detectors take min(count, limit) of a size the data decide).
    std::vector<int64_t> axes = ctx.IntsAttr(node, "axes");
    if (in[0]->scalar || in[0]->elements.empty() ||
        (!axes.empty() && (axes.size() != 1 || (axes[0] != 0 && axes[0] != -1)))) {
      return absl::UnimplementedError(absl::StrCat(op, " of a shape value: over its one axis only"));
    }
    PrimExpr r = in[0]->elements[0];
    for (size_t i = 1; i < in[0]->elements.size(); ++i) {
      r = op == "ReduceMin" ? tir::Min(r, in[0]->elements[i]) : tir::Max(r, in[0]->elements[i]);
    }
    out.elements.push_back(tir::Analyzer().Simplify(r));
    out.scalar = ctx.IntAttr(node, "keepdims", 1) == 0;
  } else if (op == "Concat") {
    for (const auto& v : in) {
      if (v) out.elements.insert(out.elements.end(), v->elements.begin(), v->elements.end());
    }
  } else {  // Slice of a vector, constant bounds
    const ShapeValue& data = *in[0];
    int64_t n = static_cast<int64_t>(data.elements.size());
    auto constant = [&](int i, int64_t fallback) -> std::optional<int64_t> {
      if (!ctx.HasInput(node, i)) return fallback;
      if (!in[i] || in[i]->elements.size() != 1 || !tir::AsConstInt(in[i]->elements[0])) return std::nullopt;
      return *tir::AsConstInt(in[i]->elements[0]);
    };
    std::optional<int64_t> start = constant(1, 0), end = constant(2, n), axis = constant(3, 0), step = constant(4, 1);
    if (!start || !end || !axis || !step || *axis != 0 || *step != 1) {
      return absl::UnimplementedError("Slice of a shape value: constant bounds along axis 0 with step 1 only");
    }
    relax::SliceRange r = relax::ClampSlice(n, *start, *end, 1);
    for (int64_t k = 0; k < r.extent; ++k) out.elements.push_back(data.elements[r.start + k]);
  }
  if (AllConstant(out)) {
    ctx.SetValue(node.output(0), ToConstant(out));
  } else {
    ctx.SetShapeValue(node.output(0), out);
  }
  return true;
}

}  // namespace onnx_import
}  // namespace mlc
