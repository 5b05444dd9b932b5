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
#include "frontend/onnx/converter_util.h"
#include "frontend/onnx/onnx_importer.h"
#include "ir/shape_util.h"
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
  TensorData t = Int64Tensor(values);
  if (v.scalar) t = TensorData(DataType::Int64(), {}, t.bytes());
  return relax::MakeConstant(t);
}

/*! \brief Elementwise a op b with broadcasting of a scalar (or one-element) side. */
absl::StatusOr<ShapeValue> Elementwise(const ShapeValue& a, const ShapeValue& b, const std::string& op) {
  size_t n = std::max(a.elements.size(), b.elements.size());
  if (a.elements.size() != n && a.elements.size() != 1) return absl::InvalidArgumentError("shape arithmetic: lengths differ");
  if (b.elements.size() != n && b.elements.size() != 1) return absl::InvalidArgumentError("shape arithmetic: lengths differ");
  ShapeValue out;
  out.scalar = a.scalar && b.scalar;
  tir::Analyzer analyzer;
  for (size_t i = 0; i < n; ++i) {
    PrimExpr x = a.elements[a.elements.size() == 1 ? 0 : i], y = b.elements[b.elements.size() == 1 ? 0 : i];
    PrimExpr r;
    if (op == "Add") r = tir::operator+(x, y);
    else if (op == "Sub") r = tir::operator-(x, y);
    else if (op == "Mul") r = tir::operator*(x, y);
    else r = tir::FloorDiv(x, y);  // Div of non-negative integers (dimensions) truncates = floors
    out.elements.push_back(analyzer.Simplify(r));
  }
  return out;
}

}  // namespace

bool OnnxContext::IsSymbolicShapeValue(const onnx::NodeProto& node, int i) const {
  return HasInput(node, i) && shape_values_.count(node.input(i)) > 0;
}

std::optional<ShapeValue> OnnxContext::ShapeValueInput(const onnx::NodeProto& node, int i) const {
  if (!HasInput(node, i)) return std::nullopt;
  if (auto it = shape_values_.find(node.input(i)); it != shape_values_.end()) return it->second;
  const TensorData* t = ConstantInput(node, i);
  if (t == nullptr || (t->dtype() != DataType::Int64() && t->dtype() != DataType::Int32()) || t->shape().size() > 1) {
    return std::nullopt;
  }
  ShapeValue v;
  v.scalar = t->shape().empty();
  for (int64_t k = 0; k < t->NumElements(); ++k) {
    v.elements.push_back(tir::I64(t->dtype() == DataType::Int64() ? t->data_as<int64_t>()[k] : t->data_as<int32_t>()[k]));
  }
  return v;
}

absl::StatusOr<bool> FoldShapeNode(OnnxContext& ctx, const onnx::NodeProto& node) {
  static const char* const kFoldable[] = {"Gather", "Unsqueeze", "Squeeze", "Concat", "Slice", "Cast",
                                          "Identity", "Add", "Sub", "Mul", "Div"};
  const std::string& op = node.op_type();
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
  bool symbolic = false;
  std::vector<std::optional<ShapeValue>> in;
  for (int i = 0; i < node.input_size(); ++i) {
    symbolic = symbolic || ctx.IsSymbolicShapeValue(node, i);
    in.push_back(ctx.ShapeValueInput(node, i));
  }
  if (!symbolic) return false;  // ordinary tensors: the converter's business
  // Every input that is given must be a shape value (or an int constant) here.
  for (int i = 0; i < node.input_size(); ++i) {
    if (ctx.HasInput(node, i) && !in[i]) {
      return absl::UnimplementedError(absl::StrCat(op, " mixes a symbolic shape value with a tensor computed at run time"));
    }
  }
  ShapeValue out;
  if (op == "Identity" || op == "Cast") {
    out = *in[0];
  } else if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
    absl::StatusOr<ShapeValue> r = Elementwise(*in[0], *in[1], op);
    if (!r.ok()) return r.status();
    out = *r;
  } else if (op == "Gather") {
    if (ctx.IntAttr(node, "axis", 0) != 0 || in[0]->scalar) return absl::UnimplementedError("Gather on a shape value: axis 0 of a vector only");
    const ShapeValue& idx = *in[1];
    int64_t n = static_cast<int64_t>(in[0]->elements.size());
    out.scalar = idx.scalar;
    for (const PrimExpr& e : idx.elements) {
      const int64_t* k = tir::AsConstInt(e);
      if (k == nullptr) return absl::UnimplementedError("Gather on a shape value: the indices must be constant");
      int64_t i = *k < 0 ? *k + n : *k;
      if (i < 0 || i >= n) return absl::InvalidArgumentError(absl::StrCat("Gather index ", *k, " out of range for ", n, " elements"));
      out.elements.push_back(in[0]->elements[i]);
    }
  } else if (op == "Unsqueeze" || op == "Squeeze") {
    // Between a scalar and a one-element vector: the only ranks a shape value has.
    out = *in[0];
    out.scalar = op == "Squeeze";
    if (out.elements.size() != 1) return absl::UnimplementedError(absl::StrCat(op, " of a shape value with ", out.elements.size(), " elements"));
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
