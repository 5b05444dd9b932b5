/*! \file constant_folding.cc
 *  \brief Import-time evaluation of the ONNX operators that make up shape computations.
 *
 *  Data-movement operators (Concat, Reshape, Slice, Transpose, Gather, (Un)Squeeze,
 *  ConstantOfShape, Identity) move elements by their bytes and work for any
 *  dtype; Cast and the arithmetic ones (Add, Sub, Mul, Div) go through double or int64.
 */
#include "frontend/onnx/constant_folding.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <set>

#include "absl/strings/str_cat.h"
#include "frontend/onnx/converter_util.h"
#include "ir/shape_util.h"

namespace mlc {
namespace onnx_import {
namespace {

using Result = absl::StatusOr<std::optional<TensorData>>;

int64_t NormalizeAxis(int64_t axis, int64_t rank) { return axis < 0 ? axis + rank : axis; }

const char* At(const TensorData& t, int64_t i) { return static_cast<const char*>(t.data()) + i * t.dtype().bytes(); }
char* At(TensorData& t, int64_t i) { return static_cast<char*>(t.mutable_data()) + i * t.dtype().bytes(); }

double ReadDouble(const TensorData& t, int64_t i) {
  const char* p = At(t, i);
  DataType d = t.dtype();
  if (d == DataType::Float32()) return *reinterpret_cast<const float*>(p);
  if (d == DataType::Float(64)) return *reinterpret_cast<const double*>(p);
  if (d == DataType::Int64()) return static_cast<double>(*reinterpret_cast<const int64_t*>(p));
  if (d == DataType::Int32()) return *reinterpret_cast<const int32_t*>(p);
  if (d == DataType::Int(8)) return *reinterpret_cast<const int8_t*>(p);
  return *reinterpret_cast<const uint8_t*>(p);  // uint8, bool
}

void WriteDouble(TensorData& t, int64_t i, double v) {
  char* p = At(t, i);
  DataType d = t.dtype();
  if (d == DataType::Float32()) *reinterpret_cast<float*>(p) = static_cast<float>(v);
  else if (d == DataType::Float(64)) *reinterpret_cast<double*>(p) = v;
  else if (d == DataType::Int64()) *reinterpret_cast<int64_t*>(p) = static_cast<int64_t>(v);
  else if (d == DataType::Int32()) *reinterpret_cast<int32_t*>(p) = static_cast<int32_t>(v);
  else if (d == DataType::Int(8)) *reinterpret_cast<int8_t*>(p) = static_cast<int8_t>(v);
  else *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(v);
}

std::vector<int64_t> Ints(const TensorData& t) {
  std::vector<int64_t> v;
  for (int64_t i = 0; i < t.NumElements(); ++i) v.push_back(static_cast<int64_t>(ReadDouble(t, i)));
  return v;
}

/*! \brief Calls f(out_flat, in_flat) for every output element of a gather-like index map. */
void ForEachIndex(const std::vector<int64_t>& out_shape, const std::function<void(const std::vector<int64_t>&, int64_t)>& f) {
  int64_t n = NumElements(out_shape);
  std::vector<int64_t> index(out_shape.size(), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    f(index, flat);
    for (int64_t d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
      if (++index[d] < out_shape[d]) break;
      index[d] = 0;
    }
  }
}

std::vector<int64_t> RowMajorStrides(const std::vector<int64_t>& shape) {
  std::vector<int64_t> s(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d) s[d] = s[d + 1] * shape[d + 1];
  return s;
}

Result Transpose(const onnx::NodeProto& node, const OnnxContext& ctx, const TensorData& x) {
  int64_t rank = static_cast<int64_t>(x.shape().size());
  std::vector<int64_t> perm = ctx.IntsAttr(node, "perm");
  if (perm.empty()) {
    for (int64_t d = rank - 1; d >= 0; --d) perm.push_back(d);
  }
  if (static_cast<int64_t>(perm.size()) != rank) return absl::InvalidArgumentError("perm does not match the rank");
  std::vector<int64_t> out_shape;
  for (int64_t p : perm) out_shape.push_back(x.shape()[p]);
  TensorData out(x.dtype(), out_shape);
  std::vector<int64_t> in_strides = RowMajorStrides(x.shape());
  ForEachIndex(out_shape, [&](const std::vector<int64_t>& i, int64_t flat) {
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d) src += i[d] * in_strides[perm[d]];
    std::memcpy(At(out, flat), At(x, src), x.dtype().bytes());
  });
  return std::optional<TensorData>(out);
}

Result Slice(const std::vector<const TensorData*>& in) {
  const TensorData& x = *in[0];
  int64_t rank = static_cast<int64_t>(x.shape().size());
  std::vector<int64_t> starts = Ints(*in[1]), ends = Ints(*in[2]), axes, steps;
  if (in.size() > 3 && in[3]) axes = Ints(*in[3]);
  if (in.size() > 4 && in[4]) steps = Ints(*in[4]);
  if (axes.empty()) {
    for (size_t d = 0; d < starts.size(); ++d) axes.push_back(static_cast<int64_t>(d));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  std::vector<int64_t> begin(rank, 0), step(rank, 1), out_shape = x.shape();
  for (size_t k = 0; k < axes.size(); ++k) {
    int64_t d = NormalizeAxis(axes[k], rank), dim = x.shape()[d];
    if (steps[k] == 0) return absl::InvalidArgumentError("Slice step 0");
    relax::SliceRange range = relax::ClampSlice(dim, starts[k], ends[k], steps[k]);
    begin[d] = range.start;
    step[d] = steps[k];
    out_shape[d] = range.extent;
  }
  TensorData out(x.dtype(), out_shape);
  std::vector<int64_t> strides = RowMajorStrides(x.shape());
  ForEachIndex(out_shape, [&](const std::vector<int64_t>& i, int64_t flat) {
    int64_t src = 0;
    for (int64_t d = 0; d < rank; ++d) src += (begin[d] + i[d] * step[d]) * strides[d];
    std::memcpy(At(out, flat), At(x, src), x.dtype().bytes());
  });
  return std::optional<TensorData>(out);
}

Result Concat(const onnx::NodeProto& node, const OnnxContext& ctx, const std::vector<const TensorData*>& in) {
  int64_t rank = static_cast<int64_t>(in[0]->shape().size());
  int64_t axis = NormalizeAxis(ctx.IntAttr(node, "axis", 0), rank);
  std::vector<int64_t> out_shape = in[0]->shape();
  out_shape[axis] = 0;
  for (const TensorData* t : in) {
    if (t->dtype() != in[0]->dtype() || static_cast<int64_t>(t->shape().size()) != rank) {
      return absl::InvalidArgumentError("Concat inputs differ in dtype or rank");
    }
    out_shape[axis] += t->shape()[axis];
  }
  TensorData out(in[0]->dtype(), out_shape);
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= out_shape[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= out_shape[d];
  size_t elem = in[0]->dtype().bytes();
  char* dst = At(out, 0);
  for (int64_t o = 0; o < outer; ++o) {
    for (const TensorData* t : in) {
      size_t chunk = static_cast<size_t>(t->shape()[axis] * inner) * elem;
      if (chunk) std::memcpy(dst, At(*t, o * t->shape()[axis] * inner), chunk);
      dst += chunk;
    }
  }
  return std::optional<TensorData>(out);
}

Result Gather(const onnx::NodeProto& node, const OnnxContext& ctx, const TensorData& x, const TensorData& indices) {
  int64_t rank = static_cast<int64_t>(x.shape().size());
  int64_t axis = NormalizeAxis(ctx.IntAttr(node, "axis", 0), rank);
  std::vector<int64_t> idx = Ints(indices), out_shape;
  for (int64_t d = 0; d < axis; ++d) out_shape.push_back(x.shape()[d]);
  for (int64_t d : indices.shape()) out_shape.push_back(d);
  for (int64_t d = axis + 1; d < rank; ++d) out_shape.push_back(x.shape()[d]);
  int64_t outer = 1, inner = 1, dim = x.shape()[axis];
  for (int64_t d = 0; d < axis; ++d) outer *= x.shape()[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x.shape()[d];
  TensorData out(x.dtype(), out_shape);
  size_t elem = x.dtype().bytes();
  int64_t flat = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k : idx) {
      if (k < 0) k += dim;
      if (k < 0 || k >= dim) return absl::InvalidArgumentError(absl::StrCat("Gather index ", k, " out of range ", dim));
      std::memcpy(At(out, flat), At(x, (o * dim + k) * inner), inner * elem);
      flat += inner;
    }
  }
  return std::optional<TensorData>(out);
}

Result Arithmetic(const std::string& op, const TensorData& a, const TensorData& b) {
  // Shape arithmetic: equal shapes or a scalar operand.
  const TensorData& big = a.NumElements() >= b.NumElements() ? a : b;
  if (a.dtype() != b.dtype() || (a.NumElements() != b.NumElements() && a.NumElements() != 1 && b.NumElements() != 1)) {
    return std::optional<TensorData>();
  }
  TensorData out(a.dtype(), big.shape());
  bool integer = !a.dtype().is_float();
  for (int64_t i = 0; i < out.NumElements(); ++i) {
    double x = ReadDouble(a, a.NumElements() == 1 ? 0 : i), y = ReadDouble(b, b.NumElements() == 1 ? 0 : i), r;
    if (op == "Add") r = x + y;
    else if (op == "Sub") r = x - y;
    else if (op == "Mul") r = x * y;
    else if (integer) r = std::floor(x / y);
    else r = x / y;
    WriteDouble(out, i, r);
  }
  return std::optional<TensorData>(out);
}

}  // namespace

Result EvaluateAtImport(const OnnxContext& ctx, const onnx::NodeProto& node) {
  const std::string& op = node.op_type();
  if (op == "Shape") {
    absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
    if (!x.ok()) return x.status();
    const auto* t = TensorOf(*x);
    if (t == nullptr || !t->shape) return std::optional<TensorData>();
    std::vector<int64_t> shape = *t->shape;
    int64_t rank = static_cast<int64_t>(shape.size());
    int64_t start = std::clamp<int64_t>(NormalizeAxis(ctx.IntAttr(node, "start", 0), rank), 0, rank);
    int64_t end = std::clamp<int64_t>(NormalizeAxis(ctx.IntAttr(node, "end", rank), rank), 0, rank);
    return std::optional<TensorData>(Int64Tensor(std::vector<int64_t>(shape.begin() + start, shape.begin() + std::max(start, end))));
  }
  if (op == "Size") {
    absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
    if (!x.ok()) return x.status();
    const auto* t = TensorOf(*x);
    if (t == nullptr || !t->shape) return std::optional<TensorData>();
    return std::optional<TensorData>(ScalarTensor(static_cast<double>(NumElements(*t->shape)), DataType::Int64()));
  }
  static const std::set<std::string> kFoldable = {"ConstantOfShape", "Concat", "Reshape", "Slice", "Transpose", "Gather",
                                                  "Unsqueeze", "Squeeze", "Cast", "Identity", "Add", "Sub", "Mul", "Div"};
  if (!kFoldable.count(op)) return std::optional<TensorData>();
  std::vector<const TensorData*> in;
  for (int i = 0; i < node.input_size(); ++i) {
    if (node.input(i).empty()) {
      in.push_back(nullptr);
      continue;
    }
    const TensorData* t = ctx.ConstantInput(node, i);
    if (t == nullptr) return std::optional<TensorData>();  // not all constant: convert normally
    in.push_back(t);
  }
  if (in.empty() || in[0] == nullptr) return std::optional<TensorData>();
  const TensorData& x = *in[0];
  if (op == "Identity") return std::optional<TensorData>(x);
  if (op == "ConstantOfShape") {
    TensorData out(DataType::Float32(), Ints(x));
    for (const onnx::AttributeProto& a : node.attribute()) {
      if (a.name() != "value") continue;
      absl::StatusOr<TensorData> v = TensorFromOnnx(a.t());
      if (!v.ok()) return v.status();
      out = TensorData(v->dtype(), Ints(x));
      for (int64_t i = 0; i < out.NumElements(); ++i) std::memcpy(At(out, i), v->data(), v->dtype().bytes());
      return std::optional<TensorData>(out);
    }
    return std::optional<TensorData>(out);  // TensorData starts zero-filled
  }
  if (op == "Concat") return Concat(node, ctx, in);
  if (op == "Transpose") return Transpose(node, ctx, x);
  if (op == "Slice") {
    if (in.size() < 3) return absl::InvalidArgumentError("Slice needs starts and ends inputs (opset >= 10)");
    return Slice(in);
  }
  if (op == "Gather") return Gather(node, ctx, x, *in[1]);
  if (op == "Cast") {
    absl::StatusOr<DataType> to = DtypeFromOnnx(static_cast<int32_t>(ctx.IntAttr(node, "to", 1)));
    if (!to.ok()) return to.status();
    TensorData out(*to, x.shape());
    for (int64_t i = 0; i < x.NumElements(); ++i) WriteDouble(out, i, ReadDouble(x, i));
    return std::optional<TensorData>(out);
  }
  if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") return Arithmetic(op, x, *in[1]);
  // Reshape, Unsqueeze, Squeeze: the same bytes under a new shape.
  std::vector<int64_t> shape = x.shape();
  int64_t rank = static_cast<int64_t>(shape.size());
  if (op == "Reshape") {
    std::vector<int64_t> target = Ints(*in[1]);
    int64_t known = 1, infer = -1;
    for (size_t d = 0; d < target.size(); ++d) {
      if (target[d] == 0 && ctx.IntAttr(node, "allowzero", 0) == 0 && static_cast<int64_t>(d) < rank) target[d] = shape[d];
      if (target[d] == -1) infer = static_cast<int64_t>(d);
      else known *= target[d];
    }
    if (infer >= 0) target[infer] = known == 0 ? 0 : x.NumElements() / known;
    shape = target;
  } else {
    std::vector<int64_t> axes = in.size() > 1 && in[1] ? Ints(*in[1]) : ctx.IntsAttr(node, "axes");
    if (op == "Unsqueeze") {
      int64_t out_rank = rank + static_cast<int64_t>(axes.size());
      std::vector<bool> added(out_rank, false);
      for (int64_t a : axes) added[NormalizeAxis(a, out_rank)] = true;
      std::vector<int64_t> out;
      size_t next = 0;
      for (int64_t d = 0; d < out_rank; ++d) out.push_back(added[d] ? 1 : shape[next++]);
      shape = out;
    } else {
      std::vector<bool> removed(rank, false);
      for (int64_t a : axes) removed[NormalizeAxis(a, rank)] = true;
      std::vector<int64_t> out;
      for (int64_t d = 0; d < rank; ++d) {
        if (axes.empty() ? shape[d] != 1 : !removed[d]) out.push_back(shape[d]);
      }
      shape = out;
    }
  }
  if (NumElements(shape) != x.NumElements()) {
    return absl::InvalidArgumentError(absl::StrCat(op, " of ", x.NumElements(), " elements to a shape of ", NumElements(shape), " elements"));
  }
  return std::optional<TensorData>(TensorData(x.dtype(), shape, x.bytes()));
}

}  // namespace onnx_import
}  // namespace mlc
