/*! \file onnx_converters.cc
 *  \brief Converters of the core ONNX operators into graph-level operators.
 */
#include <algorithm>
#include <limits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "frontend/common/activations.h"
#include "frontend/common/checked_reshape.h"
#include "frontend/common/triangle.h"
#include "frontend/onnx/converter_util.h"
#include "ir/tir/analyzer.h"
#include "support/checked_math.h"

namespace mlc {
namespace onnx_import {
namespace {

OnnxConverter Binary(const std::string& op) {
  return [op](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    absl::StatusOr<relax::Expr> a = ctx.Input(node, 0);
    if (!a.ok()) return a.status();
    absl::StatusOr<relax::Expr> b = ctx.Input(node, 1);
    if (!b.ok()) return b.status();
    return One(ctx.EmitOp(op, {*a, *b}));
  };
}

/*! \brief Pow, whose exponent may have another type than the base (the result has the base's):
 *  a float base takes the exponent converted; an integer base is raised in the exponent's
 *  floating type and converted back. */
Outputs Pow(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> base = ctx.Input(node, 0);
  if (!base.ok()) return base.status();
  absl::StatusOr<relax::Expr> exponent = ctx.Input(node, 1);
  if (!exponent.ok()) return exponent.status();
  const DataType bt = TensorOf(*base)->dtype, et = TensorOf(*exponent)->dtype;
  if (bt == et) return One(ctx.EmitOp("power", {*base, *exponent}));
  Composer c(ctx, *base);
  if (bt.is_float() || !et.is_float()) return c.Result(c.Op("power", {*base, c.Cast(*exponent, bt)}));
  return c.Result(c.Cast(c.Op("power", {c.Cast(*base, et), *exponent}), bt));
}

OnnxConverter Unary(const std::string& op) {
  return [op](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
    if (!x.ok()) return x.status();
    return One(ctx.EmitOp(op, {*x}));
  };
}

/*! \brief Y = alpha * A' @ B' + beta * C. */
Outputs Gemm(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> a = ctx.Input(node, 0);
  if (!a.ok()) return a.status();
  absl::StatusOr<relax::Expr> b = ctx.Input(node, 1);
  if (!b.ok()) return b.status();
  float alpha = ctx.FloatAttr(node, "alpha", 1.0f), beta = ctx.FloatAttr(node, "beta", 1.0f);
  DataType dtype = TensorOf(*a)->dtype;
  if (ctx.IntAttr(node, "transA", 0)) {
    a = ctx.EmitOp("permute_dims", {*a});
    if (!a.ok()) return a.status();
  }
  absl::StatusOr<relax::Expr> y =
      ctx.IntAttr(node, "transB", 0) ? ctx.EmitOp("nn.dense", {*a, *b}) : ctx.EmitOp("matmul", {*a, *b});
  if (!y.ok()) return y.status();
  if (alpha != 1.0f) {
    y = ctx.EmitOp("multiply", {*y, Scalar(alpha, dtype)});
    if (!y.ok()) return y.status();
  }
  if (ctx.HasInput(node, 2)) {
    absl::StatusOr<relax::Expr> c = ctx.Input(node, 2);
    if (!c.ok()) return c.status();
    if (beta != 1.0f) {
      c = ctx.EmitOp("multiply", {*c, Scalar(beta, dtype)});
      if (!c.ok()) return c.status();
    }
    y = ctx.EmitOp("add", {*y, *c});
  }
  return One(y);
}

Outputs ReshapeTo(OnnxContext& ctx, const relax::Expr& x, std::vector<int64_t> shape) {
  return One(ctx.EmitOp("reshape", {x}, {{"shape", shape}}));
}

Outputs Flatten(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> xs = KnownShape(*x, "Flatten's input");
  if (!xs.ok()) return xs.status();
  int64_t rank = static_cast<int64_t>(xs->size());
  int64_t axis = ctx.IntAttr(node, "axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) return absl::InvalidArgumentError(absl::StrCat("axis ", axis, " out of range"));
  // A symbolic dimension (-1 here) leaves its side of the split to reshape's -1.
  int64_t outer = 1, inner = 1;
  bool outer_symbolic = false, inner_symbolic = false;
  for (int64_t d = 0; d < rank; ++d) {
    bool before = d < axis;
    if ((*xs)[d] < 0) {
      (before ? outer_symbolic : inner_symbolic) = true;
      continue;
    }
    int64_t& f = before ? outer : inner;
    f = SaturatingMul(f, (*xs)[d]);
  }
  if (outer_symbolic && inner_symbolic)
    return absl::UnimplementedError("Flatten with symbolic dimensions on both sides of axis");
  return ReshapeTo(ctx, *x, {outer_symbolic ? -1 : outer, inner_symbolic ? -1 : inner});
}

/*! \brief Reshape to a target computed from symbolic dimensions (a ShapeValue) or of a symbolic
 *  input: 0 copies the input's dimension, -1 takes what the others leave (checked when it runs
 *  where the sizes cannot prove it divides); the result's dims go to reshape as its struct info. */
Outputs ReshapeToSymbolic(OnnxContext& ctx, const onnx::NodeProto& node, const relax::Expr& x,
                          std::vector<tir::PrimExpr> dims) {
  const auto* t = TensorOf(x);
  if (t == nullptr || !t->HasKnownShape())
    return absl::UnimplementedError("Reshape to a symbolic shape needs a known input shape");
  std::vector<tir::PrimExpr> in = t->Dims();
  bool allow_zero = ctx.IntAttr(node, "allowzero", 0) != 0;
  int infer = -1;
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t* v = tir::AsConstInt(dims[d]);
    if (v != nullptr && *v == 0 && !allow_zero) {
      if (d >= in.size()) return absl::InvalidArgumentError("0 in the shape needs a known input dimension");
      dims[d] = in[d];
    } else if (v != nullptr && *v == -1) {
      if (infer >= 0) return absl::InvalidArgumentError("at most one dimension may be -1");
      infer = static_cast<int>(d);
    }
  }
  return One(frontend::ReshapeInferring(frontend::EmitterOf(ctx), x, dims, infer, OutputDimName(node, infer)));
}

Outputs Reshape(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  if (ctx.IsSymbolicShapeValue(node, 1))
    return ReshapeToSymbolic(ctx, node, *x, ctx.ShapeValueInput(node, 1)->elements);
  absl::StatusOr<std::vector<int64_t>> target = ctx.ConstantInts(node, 1, "the target shape");
  if (!target.ok()) return target.status();
  const auto* t = TensorOf(*x);
  std::vector<int64_t> shape = *target;
  if (t != nullptr && t->IsSymbolic()) {
    // Symbolic sizes: the dimensions reshape's struct info takes (0 copies, -1 inferred).
    std::vector<tir::PrimExpr> dims;
    for (int64_t v : shape) dims.push_back(tir::I64(v));
    return ReshapeToSymbolic(ctx, node, *x, dims);
  }
  bool allow_zero = ctx.IntAttr(node, "allowzero", 0) != 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0 && !allow_zero) {
      if (t != nullptr && !t->shape && t->HasKnownShape() && d < static_cast<size_t>(t->ndim)) {
        // 0 copies a symbolic dimension: the target as dimensions of the input's.
        std::vector<tir::PrimExpr> dims;
        for (int64_t v : shape) dims.push_back(tir::I64(v));
        return ReshapeToSymbolic(ctx, node, *x, dims);
      }
      if (t == nullptr || !t->shape || d >= t->shape->size())
        return absl::InvalidArgumentError("0 in the shape needs a known input dimension");
      shape[d] = (*t->shape)[d];
    }
  }
  return ReshapeTo(ctx, *x, shape);
}

Outputs Transpose(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  Attrs attrs;
  if (ctx.HasAttr(node, "perm")) attrs["axes"] = ctx.IntsAttr(node, "perm");
  return One(ctx.EmitOp("permute_dims", {*x}, attrs));
}

Outputs Clip(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  std::optional<relax::Expr> bounds[2];
  for (int i : {1, 2}) {
    if (!ctx.HasInput(node, i)) continue;
    absl::StatusOr<relax::Expr> bound = ctx.Input(node, i);
    if (!bound.ok()) return bound.status();
    bounds[i - 1] = *bound;
  }
  Composer c(ctx, *x);
  return c.Result(frontend::Clamp(c, *x, bounds[0], bounds[1]));
}

Outputs Constant(OnnxContext& ctx, const onnx::NodeProto& node) {
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.name() == "value") {
      absl::StatusOr<TensorData> t = TensorFromOnnx(a.t());
      if (!t.ok()) return t.status();
      return std::vector<relax::Expr>{relax::MakeConstant(*t)};
    }
    if (a.name() == "value_float") return std::vector<relax::Expr>{Scalar(a.f(), DataType::Float32())};
    if (a.name() == "value_int") return std::vector<relax::Expr>{Scalar(static_cast<double>(a.i()), DataType::Int64())};
  }
  return absl::UnimplementedError("only value, value_float and value_int constants are supported");
}

/*! \brief The ONNX reductions: a reduction of the IR (sum, mean, max, min, prod), with an
 *  elementwise step before (abs for L1, a square for L2 and SumSquare) and after (sqrt for L2,
 *  log for LogSum); LogSumExp is computed as log(sum(exp(x - max))) + max. Axes come from the
 *  attribute or (ReduceSum from opset 13) input 1. */
struct ReduceFamily {
  const char* onnx_type;
  const char* reduce;  // the IR's reduction
  const char* before;  // "abs", "square" or nullptr
  const char* after;   // "sqrt", "log" or nullptr
};

const ReduceFamily kReductions[] = {
    {"ReduceSum", "sum", nullptr, nullptr},   {"ReduceMean", "mean", nullptr, nullptr},
    {"ReduceMax", "max", nullptr, nullptr},   {"ReduceMin", "min", nullptr, nullptr},
    {"ReduceProd", "prod", nullptr, nullptr}, {"ReduceL1", "sum", "abs", nullptr},
    {"ReduceL2", "sum", "square", "sqrt"},    {"ReduceSumSquare", "sum", "square", nullptr},
    {"ReduceLogSum", "sum", nullptr, "log"},  {"ReduceLogSumExp", "sum", nullptr, nullptr},
};

OnnxConverter Reduce(const ReduceFamily& family) {
  return [family](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
    if (!x.ok()) return x.status();
    std::vector<int64_t> axes = ctx.IntsAttr(node, "axes");
    if (ctx.HasInput(node, 1)) {
      absl::StatusOr<std::vector<int64_t>> from_input = ctx.ConstantInts(node, 1, "axes");
      if (!from_input.ok()) return from_input.status();
      axes = *from_input;
    }
    if (axes.empty() && ctx.IntAttr(node, "noop_with_empty_axes", 0) != 0) return std::vector<relax::Expr>{*x};
    const bool keepdims = ctx.IntAttr(node, "keepdims", 1) != 0;
    auto reduce = [&](const char* op, const relax::Expr& v, bool keep) {
      Attrs attrs = {{"keepdims", keep}};
      if (!axes.empty()) attrs["axis"] = axes;
      return ctx.EmitOp(op, {v}, attrs);
    };
    relax::Expr in = *x;
    if (std::string(family.onnx_type) == "ReduceLogSumExp") {
      absl::StatusOr<relax::Expr> m = reduce("max", in, true);
      if (!m.ok()) return m.status();
      absl::StatusOr<relax::Expr> shifted = ctx.EmitOp("subtract", {in, *m});
      if (!shifted.ok()) return shifted.status();
      absl::StatusOr<relax::Expr> e = ctx.EmitOp("exp", {*shifted});
      if (!e.ok()) return e.status();
      absl::StatusOr<relax::Expr> s = reduce("sum", *e, keepdims);
      if (!s.ok()) return s.status();
      absl::StatusOr<relax::Expr> l = ctx.EmitOp("log", {*s});
      if (!l.ok()) return l.status();
      absl::StatusOr<relax::Expr> m_out = reduce("max", in, keepdims);
      if (!m_out.ok()) return m_out.status();
      return One(ctx.EmitOp("add", {*l, *m_out}));
    }
    if (family.before != nullptr) {
      absl::StatusOr<relax::Expr> pre =
          std::string(family.before) == "square" ? ctx.EmitOp("multiply", {in, in}) : ctx.EmitOp(family.before, {in});
      if (!pre.ok()) return pre.status();
      in = *pre;
    }
    absl::StatusOr<relax::Expr> r = reduce(family.reduce, in, keepdims);
    if (!r.ok() || family.after == nullptr) return One(r);
    return One(ctx.EmitOp(family.after, {*r}));
  };
}

/*! \brief Mod: fmod=0 takes the divisor's sign (integers only, as NumPy), fmod=1 the dividend's. */
Outputs Mod(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> a = ctx.Input(node, 0);
  if (!a.ok()) return a.status();
  absl::StatusOr<relax::Expr> b = ctx.Input(node, 1);
  if (!b.ok()) return b.status();
  return One(ctx.EmitOp(ctx.IntAttr(node, "fmod", 0) != 0 ? "fmod" : "floor_mod", {*a, *b}));
}

/*! \brief Trilu: x inside the upper (upper=1) or lower triangle of its last two dimensions,
 *  shifted by k (input 1), and 0 outside (triu / tril; the dimensions may be symbolic). A k
 *  computed by the graph (a size, or a value known when it runs) is compared with column - row. */
Outputs Trilu(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  const bool upper = ctx.IntAttr(node, "upper", 1) != 0;
  int64_t k = 0;
  if (ctx.HasInput(node, 1)) {
    const TensorData* kc = ctx.ConstantInput(node, 1);
    if (kc == nullptr) {
      absl::StatusOr<relax::Expr> kv = ctx.Input(node, 1);
      if (!kv.ok()) return kv.status();
      return One(frontend::TriangleWithRuntimeDiagonal(frontend::EmitterOf(ctx), *x, *kv, upper));
    }
    absl::StatusOr<std::vector<int64_t>> kv = ctx.ConstantInts(node, 1, "k");
    if (!kv.ok()) return kv.status();
    if (kv->size() != 1) return absl::InvalidArgumentError("k must be one integer");
    k = (*kv)[0];
  }
  return One(ctx.EmitOp(upper ? "triu" : "tril", {*x}, {{"k", k}}));
}

/*! \brief CumSum: the axis is input 1 (a constant). */
Outputs CumSum(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<std::vector<int64_t>> axis = ctx.ConstantInts(node, 1, "axis");
  if (!axis.ok()) return axis.status();
  if (axis->size() != 1) return absl::InvalidArgumentError("axis must be one integer");
  return One(ctx.EmitOp("cumsum", {*x},
                        {{"axis", (*axis)[0]},
                         {"exclusive", ctx.IntAttr(node, "exclusive", 0) != 0},
                         {"reverse", ctx.IntAttr(node, "reverse", 0) != 0}}));
}

/*! \brief Hardmax (opset 13: along `axis`): 1 at the first largest element, 0 elsewhere, as
 *  argmax compared with the positions along the axis (a constant). */
Outputs Hardmax(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  if (ctx.opset() < 13)
    return absl::UnimplementedError("Hardmax before opset 13 (over the input seen as 2-D) is not supported");
  absl::StatusOr<std::vector<int64_t>> shape = KnownShape(*x, "Hardmax's input");
  if (!shape.ok()) return shape.status();
  int64_t rank = static_cast<int64_t>(shape->size()), axis = ctx.IntAttr(node, "axis", -1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank || (*shape)[axis] < 0)
    return absl::InvalidArgumentError("axis out of range or symbolic");
  absl::StatusOr<relax::Expr> best = ctx.EmitOp("argmax", {*x}, {{"axis", axis}, {"keepdims", true}});
  if (!best.ok()) return best.status();
  std::vector<int64_t> positions_shape(rank, 1), positions;
  positions_shape[axis] = (*shape)[axis];
  for (int64_t i = 0; i < (*shape)[axis]; ++i) positions.push_back(i);
  relax::Expr iota =
      relax::MakeConstant(TensorData(DataType::Int64(), positions_shape, Int64Tensor(positions).bytes()));
  absl::StatusOr<relax::Expr> hit = ctx.EmitOp("equal", {iota, *best});
  if (!hit.ok()) return hit.status();
  return One(ctx.EmitOp("astype", {*hit}, {{"dtype", TensorOf(*x)->dtype}}));
}

/*! \brief Dropout at inference: the input, and (when asked for) a mask of ones. Training mode
 *  is refused unless its ratio is a constant 0, which drops nothing (torchvision 0.14's Swin
 *  attention calls F.dropout without training=, so its export has training_mode=true, ratio 0). */
Outputs Dropout(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  if (ctx.HasInput(node, 2)) {
    absl::StatusOr<std::vector<int64_t>> training = ctx.ConstantInts(node, 2, "training_mode");
    if (!training.ok()) return training.status();
    const TensorData* ratio = ctx.HasInput(node, 1) ? ctx.ConstantInput(node, 1) : nullptr;
    const bool drops_nothing = ratio != nullptr && ratio->NumElements() == 1 && ratio->dtype() == DataType::Float32() &&
                               ratio->data_as<float>()[0] == 0.0f;
    if (!training->empty() && (*training)[0] != 0 && !drops_nothing)
      return absl::UnimplementedError(
          "training_mode=true with a ratio that is not a constant 0 (random dropout) is not supported");
  }
  std::vector<relax::Expr> outs = {*x};
  if (node.output_size() > 1 && !node.output(1).empty()) {
    absl::StatusOr<std::vector<int64_t>> shape = StaticShape(*x, "Dropout's input (for its mask)");
    if (!shape.ok()) return shape.status();
    TensorData ones(DataType::Bool(), {});
    static_cast<uint8_t*>(ones.mutable_data())[0] = 1;
    absl::StatusOr<relax::Expr> mask = ctx.EmitOp("broadcast_to", {relax::MakeConstant(ones)}, {{"shape", *shape}});
    if (!mask.ok()) return mask.status();
    outs.push_back(*mask);
  }
  return outs;
}

/*! \brief IsNaN (x != x) and IsInf (x == +inf and/or -inf, by detect_positive/detect_negative). */
Outputs IsNaN(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  return One(ctx.EmitOp("not_equal", {*x, *x}));
}

Outputs IsInf(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  DataType dtype = TensorOf(*x)->dtype;
  const bool positive = ctx.IntAttr(node, "detect_positive", 1) != 0,
             negative = ctx.IntAttr(node, "detect_negative", 1) != 0;
  const double inf = std::numeric_limits<double>::infinity();
  if (positive && negative) {
    absl::StatusOr<relax::Expr> a = ctx.EmitOp("abs", {*x});
    if (!a.ok()) return a.status();
    return One(ctx.EmitOp("equal", {*a, Scalar(inf, dtype)}));
  }
  if (!positive && !negative) {
    TensorData no(DataType::Bool(), {});
    static_cast<uint8_t*>(no.mutable_data())[0] = 0;
    absl::StatusOr<std::vector<int64_t>> shape = StaticShape(*x, "IsInf's input");
    if (!shape.ok()) return shape.status();
    return One(ctx.EmitOp("broadcast_to", {relax::MakeConstant(no)}, {{"shape", *shape}}));
  }
  return One(ctx.EmitOp("equal", {*x, Scalar(positive ? inf : -inf, dtype)}));
}

/*! \brief ArgMax / ArgMin: axis, keepdims (default 1) and select_last_index. */
OnnxConverter ArgReduce(const char* op) {
  return [op](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs {
    absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
    if (!x.ok()) return x.status();
    return One(ctx.EmitOp(op, {*x},
                          {{"axis", ctx.IntAttr(node, "axis", 0)},
                           {"keepdims", ctx.IntAttr(node, "keepdims", 1) != 0},
                           {"select_last_index", ctx.IntAttr(node, "select_last_index", 0) != 0}}));
  };
}

/*! \brief Slice of a computed tensor (constant data is evaluated at import): constant starts,
 *  ends, axes and steps become a strided_slice. */
/*! \brief Slice whose starts, ends or steps are computed when the model runs (a loop's iteration
 *  number, a length read from data): the library slices (mlc.slice) and the sliced axes' lengths
 *  are new variables (`<output>_dim<axis>`). The axes must be constant. */
Outputs SliceAtRunTime(OnnxContext& ctx, const onnx::NodeProto& node, const relax::Expr& x) {
  const relax::TensorStructInfoNode* t = TensorOf(x);
  if (t == nullptr || !t->HasKnownShape())
    return absl::InvalidArgumentError("the input of a Slice with computed bounds needs a known shape");
  std::vector<relax::Expr> args = {x};
  for (int i = 1; i <= 2; ++i) {
    absl::StatusOr<relax::Expr> bound = ctx.Input(node, i);
    if (!bound.ok()) return bound.status();
    const relax::TensorStructInfoNode* b = TensorOf(*bound);
    if (b == nullptr || !b->HasKnownShape() || b->ndim != 1 || tir::AsConstInt(b->Dims()[0]) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(i == 1 ? "starts" : "ends", " must be a 1-d tensor of static length"));
    }
    args.push_back(*bound);
  }
  const int64_t count = *tir::AsConstInt(TensorOf(args[1])->Dims()[0]);
  std::vector<int64_t> axes;
  if (ctx.HasInput(node, 3)) {
    absl::StatusOr<std::vector<int64_t>> given = ctx.ConstantInts(node, 3, "axes");
    if (!given.ok()) return given.status();
    axes = *given;
  } else {
    for (int64_t d = 0; d < count; ++d) axes.push_back(d);
  }
  if (static_cast<int64_t>(axes.size()) != count) return absl::InvalidArgumentError("starts and axes differ in length");
  args.push_back(relax::MakeConstant(Int64Tensor(axes)));
  if (ctx.HasInput(node, 4)) {
    absl::StatusOr<relax::Expr> steps = ctx.Input(node, 4);
    if (!steps.ok()) return steps.status();
    args.push_back(*steps);
  } else {
    args.push_back(relax::MakeConstant(Int64Tensor(std::vector<int64_t>(count, 1))));
  }
  std::vector<tir::PrimExpr> dims = t->Dims();
  for (int64_t& axis : axes) {
    if (axis < 0) axis += t->ndim;
    if (axis < 0 || axis >= t->ndim) return absl::InvalidArgumentError(absl::StrCat("axis ", axis, " is out of range"));
    dims[axis] = tir::MakeVar(absl::StrCat(SanitizeIdentifier(node.output(0)), "_dim", axis), DataType::Int64());
  }
  return CallAllocating(ctx, "mlc.slice", std::move(args), {{t->dtype, dims}});
}

Outputs Slice(OnnxContext& ctx, const onnx::NodeProto& node) {
  absl::StatusOr<relax::Expr> x = ctx.Input(node, 0);
  if (!x.ok()) return x.status();
  std::vector<std::vector<int64_t>> v(4);
  const char* names[] = {"starts", "ends", "axes", "steps"};
  for (int i : {1, 2, 4}) {
    if (ctx.opset() >= 10 && ctx.HasInput(node, i) && ctx.ConstantInput(node, i) == nullptr) {
      return SliceAtRunTime(ctx, node, *x);
    }
  }
  for (int i = 1; i <= 4; ++i) {
    if (!ctx.HasInput(node, i)) continue;
    absl::StatusOr<std::vector<int64_t>> values = ctx.ConstantInts(node, i, names[i - 1]);
    if (!values.ok()) return values.status();
    v[i - 1] = *values;
  }
  if (ctx.opset() < 10) return absl::UnimplementedError("Slice before opset 10 (attributes) is not supported");
  std::vector<int64_t> axes = v[2];
  if (axes.empty()) {
    for (size_t d = 0; d < v[0].size(); ++d) axes.push_back(static_cast<int64_t>(d));
  }
  // INT64 max/min mean "to the end"; clamp to something the attribute type holds.
  for (std::vector<int64_t>* bound : {&v[0], &v[1]}) {
    for (int64_t& b : *bound) b = std::max<int64_t>(std::min<int64_t>(b, int64_t{1} << 40), -(int64_t{1} << 40));
  }
  Attrs attrs = {{"axes", axes}, {"begin", v[0]}, {"end", v[1]}};
  if (!v[3].empty()) attrs["strides"] = v[3];
  return One(ctx.EmitOp("strided_slice", {*x}, attrs));
}

}  // namespace

void RegisterCoreOnnxConverters(OnnxConverterRegistry& r) {
  for (const auto& [type, op] : std::vector<std::pair<const char*, const char*>>{{"Add", "add"},
                                                                                 {"Sub", "subtract"},
                                                                                 {"Mul", "multiply"},
                                                                                 {"Div", "divide"},
                                                                                 {"MatMul", "matmul"},
                                                                                 {"Equal", "equal"},
                                                                                 {"Less", "less"},
                                                                                 {"LessOrEqual", "less_equal"},
                                                                                 {"Greater", "greater"},
                                                                                 {"GreaterOrEqual", "greater_equal"},
                                                                                 {"And", "logical_and"},
                                                                                 {"Or", "logical_or"},
                                                                                 {"Xor", "logical_xor"}}) {
    r.Register(type, Binary(op));
  }
  r.Register("Pow", Pow);
  for (const auto& [type, op] : std::vector<std::pair<const char*, const char*>>{
           {"Relu", "nn.relu"},    {"Sigmoid", "sigmoid"}, {"Tanh", "tanh"},   {"Exp", "exp"},
           {"Log", "log"},         {"Sqrt", "sqrt"},       {"Erf", "erf"},     {"Neg", "negative"},
           {"Not", "logical_not"}, {"Abs", "abs"},         {"Floor", "floor"}, {"Ceil", "ceil"},
           {"Round", "round"},     {"Sign", "sign"},       {"Sin", "sin"},     {"Cos", "cos"},
           {"Tan", "tan"},         {"Asin", "asin"},       {"Acos", "acos"},   {"Atan", "atan"},
           {"Sinh", "sinh"},       {"Cosh", "cosh"},       {"Asinh", "asinh"}, {"Acosh", "acosh"},
           {"Atanh", "atanh"}}) {
    r.Register(type, Unary(op));
  }
  for (const ReduceFamily& family : kReductions) r.Register(family.onnx_type, Reduce(family));
  r.Register("ArgMax", ArgReduce("argmax"));
  r.Register("ArgMin", ArgReduce("argmin"));
  r.Register("Mod", Mod);
  r.Register("CumSum", CumSum);
  r.Register("Hardmax", Hardmax);
  r.Register("Dropout", Dropout);
  r.Register("IsNaN", IsNaN);
  r.Register("IsInf", IsInf);
  r.Register("Trilu", Trilu);
  r.Register("Slice", Slice);
  r.Register("Gemm", Gemm);
  r.Register("Flatten", Flatten);
  r.Register("Reshape", Reshape);
  r.Register("Transpose", Transpose);
  r.Register("Clip", Clip);
  r.Register("Constant", Constant);
  r.Register("Identity",
             [](OnnxContext& ctx, const onnx::NodeProto& node) -> Outputs { return One(ctx.Input(node, 0)); });
}

}  // namespace onnx_import
}  // namespace mlc
