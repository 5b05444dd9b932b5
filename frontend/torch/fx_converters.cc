/*! \file fx_converters.cc
 *  \brief The core FX converters (elementwise operators, Linear, reshapes, clamps, tuple
 *         indexing), to graph-level operators; legalize lowers them to tensor expressions.
 *         The CNN and transformer families are in fx_nn_converters.cc and
 *         fx_transformer_converters.cc.
 */
#include <cmath>
#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "frontend/common/activations.h"
#include "frontend/common/triangle.h"
#include "frontend/torch/fx_activation.h"
#include "frontend/torch/fx_converter_util.h"
#include "ir/graph/op.h"
#include "ir/tir/analyzer.h"
#include "ir/tir/prim_expr_ops.h"

namespace mlc {
namespace fx {
namespace {

FxConverter Binary(const std::string& op) {
  return [=](FxContext& ctx, const proto::FxNode& node) -> absl::StatusOr<relax::Expr> {
    if (AreSizes(ctx, node)) return SizeArithmetic(ctx, node, op);  // t + 1, past + seq
    // The dtype comes from whichever operand is a tensor.
    DataType dtype = DataType::Float32();
    for (int i = 0; i < 2 && i < node.args_size(); ++i) {
      if (node.args(i).value_case() == proto::FxArg::kNode) {
        absl::StatusOr<relax::Expr> v = ctx.Arg(node, i);
        if (v.ok()) dtype = DtypeOf(*v);
      }
    }
    absl::StatusOr<relax::Expr> a = Operand(ctx, node, 0, dtype);
    if (!a.ok()) return a.status();
    absl::StatusOr<relax::Expr> b = Operand(ctx, node, 1, dtype);
    if (!b.ok()) return b.status();
    return ctx.EmitOp(op, {*a, *b});
  };
}

FxConverter Unary(const std::string& op) {
  return [=](FxContext& ctx, const proto::FxNode& node) -> absl::StatusOr<relax::Expr> {
    absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
    if (!x.ok()) return x.status();
    return ctx.EmitOp(op, {*x});
  };
}

/*! \brief torch.nn.Linear: x @ weight.T + bias, as the seeds' permute_dims + matmul + add. */
/*! \brief nn.Linear (its parameters) or F.linear(input, weight, bias=None) (a bare Linear
 *  traced at the root comes as the function): x @ weight.T + bias. */
absl::StatusOr<relax::Expr> ConvertLinear(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  const bool module = node.op() == "call_module";
  absl::StatusOr<relax::Expr> w = module ? ctx.Param(node.target() + ".weight") : ctx.Arg(node, 1, "weight");
  if (!w.ok()) return w.status();
  const bool has_bias = module ? ctx.HasParam(node.target() + ".bias")
                               : (node.args_size() > 2 ? node.args(2).value_case() == proto::FxArg::kNode
                                                       : node.kwargs().count("bias") > 0);
  absl::StatusOr<relax::Expr> wt = ctx.EmitOp("permute_dims", {*w});
  if (!wt.ok()) return wt;
  absl::StatusOr<relax::Expr> y = ctx.EmitOp("matmul", {*x, *wt});
  if (!y.ok() || !has_bias) return y;
  absl::StatusOr<relax::Expr> b = module ? ctx.Param(node.target() + ".bias") : ctx.Arg(node, 2, "bias");
  if (!b.ok()) return b.status();
  return ctx.EmitOp("add", {*y, *b});
}

/*! \brief The result of flatten / view / reshape of symbolic `dims`, from the call's arguments
 *  (shape propagation recorded only the example's sizes). */
absl::StatusOr<std::vector<tir::PrimExpr>> SymbolicReshapeTarget(FxContext& ctx, const proto::FxNode& node,
                                                                 const std::vector<tir::PrimExpr>& dims) {
  const int64_t rank = static_cast<int64_t>(dims.size());
  const bool flatten =
      node.target() == "flatten" || node.target() == "torch.flatten" || node.module_type() == "Flatten";
  if (flatten) {
    const bool module = node.op() == "call_module";
    int64_t start = module ? IntsOf(node, "start_dim", 1, {1})[0] : IntArg(node, 1, "start_dim", 0);
    int64_t end = module ? IntsOf(node, "end_dim", 1, {-1})[0] : IntArg(node, 2, "end_dim", -1);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    if (start < 0 || end >= rank || start > end) return absl::InvalidArgumentError("flatten: dimensions out of range");
    std::vector<tir::PrimExpr> out(dims.begin(), dims.begin() + start);
    tir::PrimExpr merged = tir::I64(1);
    for (int64_t d = start; d <= end; ++d) merged = tir::operator*(merged, dims[d]);
    out.push_back(tir::Analyzer().Simplify(merged));
    out.insert(out.end(), dims.begin() + end + 1, dims.end());
    return out;
  }
  // view(x, a, b, ...), reshape(x, (a, b, ...)), torch.reshape(x, (a, b)).
  absl::StatusOr<std::vector<tir::PrimExpr>> target = DimsArgs(ctx, node, 1, "shape");
  if (!target.ok()) return target.status();
  std::vector<tir::PrimExpr> out, known;
  int infer = -1;
  for (const tir::PrimExpr& d : *target) {
    const int64_t* v = tir::AsConstInt(d);
    if (v != nullptr && *v == -1) {
      if (infer >= 0) return absl::InvalidArgumentError("at most one dimension may be -1");
      infer = static_cast<int>(out.size());
    } else {
      known.push_back(d);
    }
    out.push_back(d);
  }
  if (infer >= 0) out[infer] = relax::InferredReshapeDim(dims, known);
  return out;
}

/*! \brief flatten / view / reshape: to the shape shape propagation recorded, or, for an input
 *  with symbolic dimensions, to the one its arguments say. */
absl::StatusOr<relax::Expr> ConvertReshape(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  const auto* t = (*x)->struct_info().as<relax::TensorStructInfoNode>();
  if (t != nullptr && t->IsSymbolic()) {
    absl::StatusOr<std::vector<tir::PrimExpr>> dims = SymbolicReshapeTarget(ctx, node, t->Dims());
    if (!dims.ok()) return dims.status();
    relax::Call call =
        relax::MakeCall(relax::GetOpOrDie("reshape"), {*x}, {}, {relax::TensorSInfoOfDims(*dims, t->dtype)});
    absl::StatusOr<relax::Var> v = ctx.bb().Emit(call);
    if (!v.ok()) return v.status();
    return relax::Expr(*v);
  }
  if (node.outputs_size() != 1) return absl::InvalidArgumentError("the result shape was not recorded");
  std::vector<int64_t> shape(node.outputs(0).shape().begin(), node.outputs(0).shape().end());
  return ctx.EmitOp("reshape", {*x}, {{"shape", shape}});
}

/*! \brief An activation's parameter: the module's attribute `name`, or the function's argument at
 *  `index` or keyword `name`. */
double ActivationParam(const proto::FxNode& node, int index, const std::string& name, double fallback) {
  return node.op() == "call_module" ? FloatOf(node, name, fallback) : NumberArg(node, index, name, fallback);
}

/*! \brief min(max(x, lo), hi): ReLU6 and Hardtanh modules (their min_val/max_val), F.hardtanh and F.relu6. */
relax::Expr ClampActivation(frontend::Composer& c, relax::Expr x, const proto::FxNode& node) {
  if (node.op() != "call_module" && node.target() == "torch.nn.functional.relu6") {
    return frontend::Clamp(c, x, c.K(0), c.K(6));
  }
  // Hardtanh's arguments (F.hardtanh, aten.hardtanh) or attributes (ReLU6 is a Hardtanh of 0, 6).
  return frontend::Clamp(c, x, c.K(ActivationParam(node, 1, "min_val", -1.0)),
                         c.K(ActivationParam(node, 2, "max_val", 1.0)));
}

/*! \brief GELU, exact or with approximate="tanh". */
absl::StatusOr<relax::Expr> ConvertGelu(FxContext& ctx, const proto::FxNode& node) {
  std::string approximate = StringOf(node, "approximate", "none");
  auto kw = node.kwargs().find("approximate");
  if (kw != node.kwargs().end()) approximate = kw->second.s();
  if (approximate != "none" && approximate != "tanh")
    return absl::InvalidArgumentError("approximate must be 'none' or 'tanh'");
  const frontend::GeluApproximation how =
      approximate == "tanh" ? frontend::GeluApproximation::kTanh : frontend::GeluApproximation::kNone;
  return Activation([how](frontend::Composer& c, relax::Expr x, const proto::FxNode&) {
    return frontend::Gelu(c, x, how);
  })(ctx, node);
}

/*! \brief Softplus with its beta; PyTorch's threshold (a linear region where beta x > threshold)
 *  is within e^-threshold of the formula. */
relax::Expr SoftplusActivation(frontend::Composer& c, relax::Expr x, const proto::FxNode& node) {
  return frontend::Softplus(c, x, ActivationParam(node, 1, "beta", 1.0));
}

/*! \brief torch.cat(tensors, dim). */
absl::StatusOr<relax::Expr> ConvertCat(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<std::vector<relax::Expr>> parts = ValueListArg(ctx, node, 0, "tensors", "torch.cat");
  if (!parts.ok()) return parts.status();
  int64_t dim = IntArg(node, 1, "dim", 0), rank = RankOf(parts->front());
  if (dim < 0 && rank > 0) dim += rank;
  return ctx.EmitOp("concat", *parts, {{"axis", dim}});
}

/*! \brief x.masked_fill(mask, value) / torch.masked_fill: `value` where the mask holds, x elsewhere
 *  (a causal mask's -inf above the diagonal). */
absl::StatusOr<relax::Expr> ConvertMaskedFill(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> mask = ctx.Arg(node, 1, "mask");
  if (!mask.ok()) return mask.status();
  if (DtypeOf(*mask) != DataType::Bool()) return absl::InvalidArgumentError("the mask must be a bool tensor");
  absl::StatusOr<relax::Expr> value = Operand(ctx, node, 2, DtypeOf(*x));
  if (!value.ok()) return value.status();
  return ctx.EmitOp("where", {*mask, *value, *x});
}

/*! \brief torch.triu / torch.tril (x, diagonal) and the methods: x on and above (below) the
 *  diagonal shifted by `diagonal`, 0 elsewhere; the dimensions may be symbolic, and so may the
 *  diagonal (triu(mask, diagonal=past + 1) after a key/value cache). */
FxConverter ConvertTriangle(const std::string& op) {
  return [op](FxContext& ctx, const proto::FxNode& node) -> absl::StatusOr<relax::Expr> {
    absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
    if (!x.ok()) return x.status();
    const proto::FxArg* diagonal = node.args_size() > 1 ? &node.args(1) : nullptr;
    if (auto it = node.kwargs().find("diagonal"); it != node.kwargs().end()) diagonal = &it->second;
    if (diagonal != nullptr && diagonal->value_case() == proto::FxArg::kNode) {
      absl::StatusOr<tir::PrimExpr> size = DimArg(ctx, *diagonal);
      if (!size.ok()) return absl::UnimplementedError("torch." + op + ": the diagonal must be an integer or a size");
      if (const int64_t* k = tir::AsConstInt(*size)) return ctx.EmitOp(op, {*x}, {{"k", *k}});
      absl::StatusOr<relax::Expr> k = ctx.SizeAsTensor(*size);
      if (!k.ok()) return k.status();
      return frontend::TriangleWithRuntimeDiagonal(frontend::EmitterOf(ctx), *x, *k, op == "triu");
    }
    return ctx.EmitOp(op, {*x}, {{"k", IntArg(node, 1, "diagonal", 0)}});
  };
}

/*! \brief x.to(dtype) (a device or another tensor's device changes nothing here), x.float(),
 *  x.long() and the like. */
absl::StatusOr<relax::Expr> ConvertTo(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  std::string dtype;
  static const std::map<std::string, std::string>* kMethods =
      new std::map<std::string, std::string>{{"float", "float32"}, {"double", "float64"}, {"half", "float16"},
                                             {"long", "int64"},    {"int", "int32"},      {"bool", "bool"}};
  if (auto m = kMethods->find(node.target()); m != kMethods->end()) dtype = m->second;
  for (int i = 1; i < node.args_size(); ++i) {
    if (node.args(i).value_case() == proto::FxArg::kDtype) dtype = node.args(i).dtype();
  }
  if (auto kw = node.kwargs().find("dtype"); kw != node.kwargs().end()) dtype = kw->second.dtype();
  if (dtype.empty()) return *x;  // .to("cpu")
  absl::StatusOr<DataType> t = DataType::Parse(dtype);
  if (!t.ok()) return t.status();
  if (*t == DtypeOf(*x)) return *x;
  return ctx.EmitOp("astype", {*x}, {{"dtype", *t}});
}

/*! \brief torch.rsqrt(x) = 1 / sqrt(x) (RMSNorm). */
absl::StatusOr<relax::Expr> ConvertRsqrt(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  absl::StatusOr<relax::Expr> root = ctx.EmitOp("sqrt", {*x});
  if (!root.ok()) return root;
  return ctx.EmitOp("divide", {FxContext::Scalar(1.0, DtypeOf(*x)), *root});
}

/*! \brief nn.Embedding: the rows of its weight the indices name (padding_idx changes only training). */
absl::StatusOr<relax::Expr> ConvertEmbedding(FxContext& ctx, const proto::FxNode& node) {
  absl::StatusOr<relax::Expr> ids = ctx.Arg(node, 0);
  if (!ids.ok()) return ids.status();
  if (!DtypeOf(*ids).is_int()) return absl::InvalidArgumentError("the indices must be integers");
  absl::StatusOr<relax::Expr> weight = ctx.Param(node.target() + ".weight");
  if (!weight.ok()) return weight.status();
  return ctx.EmitOp("take", {*weight, *ids}, {{"axis", int64_t{0}}});
}

}  // namespace

void RegisterCoreFxConverters(FxConverterRegistry& r) {
  using K = FxConverterRegistry;
  struct BinaryEntry {
    const char* op;
    std::vector<const char*> functions;
    const char* method;
  };
  for (const BinaryEntry& e :
       {BinaryEntry{"add", {"operator.add", "torch.add", "operator.iadd"}, "add"},
        BinaryEntry{"subtract", {"operator.sub", "torch.sub"}, "sub"},
        BinaryEntry{"multiply", {"operator.mul", "torch.mul"}, "mul"},
        BinaryEntry{"divide", {"operator.truediv", "torch.div"}, "div"},
        BinaryEntry{"matmul", {"torch.matmul", "operator.matmul"}, "matmul"},
        BinaryEntry{"maximum", {"torch.maximum"}, nullptr}, BinaryEntry{"minimum", {"torch.minimum"}, nullptr},
        BinaryEntry{"power", {"torch.pow", "operator.pow"}, "pow"},
        BinaryEntry{"greater", {"operator.gt", "torch.gt"}, "gt"},
        BinaryEntry{"less", {"operator.lt", "torch.lt"}, "lt"},
        BinaryEntry{"greater_equal", {"operator.ge", "torch.ge"}, "ge"},
        BinaryEntry{"less_equal", {"operator.le", "torch.le"}, "le"},
        BinaryEntry{"equal", {"operator.eq", "torch.eq"}, "eq"},
        BinaryEntry{"not_equal", {"operator.ne", "torch.ne"}, "ne"},
        BinaryEntry{"logical_and", {"torch.logical_and"}, "logical_and"},
        BinaryEntry{"logical_or", {"torch.logical_or"}, "logical_or"},
        BinaryEntry{"logical_xor", {"torch.logical_xor"}, "logical_xor"}}) {
    for (const char* t : e.functions) r.Register(K::kFunction, t, Binary(e.op));
    if (e.method) r.Register(K::kMethod, e.method, Binary(e.op));
  }
  struct UnaryEntry {
    const char* op;
    std::vector<const char*> functions;
    const char* module;
    const char* method;
  };
  for (const UnaryEntry& e :
       {UnaryEntry{"nn.relu", {"torch.relu", "torch.nn.functional.relu"}, "ReLU", "relu"},
        UnaryEntry{"sigmoid", {"torch.sigmoid", "torch.nn.functional.sigmoid"}, "Sigmoid", "sigmoid"},
        UnaryEntry{"tanh", {"torch.tanh", "torch.nn.functional.tanh"}, "Tanh", "tanh"},
        UnaryEntry{"exp", {"torch.exp"}, nullptr, "exp"}, UnaryEntry{"log", {"torch.log"}, nullptr, "log"},
        UnaryEntry{"sqrt", {"torch.sqrt"}, nullptr, "sqrt"},
        UnaryEntry{"erf", {"torch.erf", "torch.special.erf"}, nullptr, "erf"},
        UnaryEntry{"negative", {"operator.neg", "torch.neg"}, nullptr, "neg"},
        UnaryEntry{"cos", {"torch.cos"}, nullptr, "cos"}, UnaryEntry{"sin", {"torch.sin"}, nullptr, "sin"},
        UnaryEntry{"logical_not", {"torch.logical_not"}, nullptr, "logical_not"}}) {
    FxConverter c = Unary(e.op);
    for (const char* f : e.functions) r.Register(K::kFunction, f, c);
    if (e.module) r.Register(K::kModule, e.module, c);
    if (e.method) r.Register(K::kMethod, e.method, c);
  }
  r.Register(K::kModule, "GELU", ConvertGelu);
  // Activations whose formulas frontend/common/activations.h holds: a module and its function.
  using frontend::Composer;
  struct ActivationEntry {
    const char* module;
    const char* function;
    std::function<relax::Expr(Composer&, relax::Expr, const proto::FxNode&)> formula;
  };
  const ActivationEntry activations[] = {
      {"ReLU6", "torch.nn.functional.relu6", ClampActivation},
      {"Hardtanh", "torch.nn.functional.hardtanh", ClampActivation},
      {"Hardswish", "torch.nn.functional.hardswish",
       [](Composer& c, relax::Expr x, const proto::FxNode&) { return frontend::HardSwish(c, x); }},
      {"Hardsigmoid", "torch.nn.functional.hardsigmoid",
       [](Composer& c, relax::Expr x, const proto::FxNode&) { return frontend::HardSigmoid(c, x); }},
      {"SiLU", "torch.nn.functional.silu",
       [](Composer& c, relax::Expr x, const proto::FxNode&) { return frontend::Silu(c, x); }},
      {"LeakyReLU", "torch.nn.functional.leaky_relu",
       [](Composer& c, relax::Expr x, const proto::FxNode& n) {
         return frontend::LeakyRelu(c, x, ActivationParam(n, 1, "negative_slope", 0.01));
       }},
      {"ELU", "torch.nn.functional.elu",
       [](Composer& c, relax::Expr x, const proto::FxNode& n) {
         return frontend::Elu(c, x, ActivationParam(n, 1, "alpha", 1.0));
       }},
      {"SELU", "torch.nn.functional.selu",
       [](Composer& c, relax::Expr x, const proto::FxNode&) { return frontend::Selu(c, x); }},
      {"CELU", "torch.nn.functional.celu",
       [](Composer& c, relax::Expr x, const proto::FxNode& n) {
         return frontend::Celu(c, x, ActivationParam(n, 1, "alpha", 1.0));
       }},
      {"Softplus", "torch.nn.functional.softplus", SoftplusActivation},
      {"Mish", "torch.nn.functional.mish",
       [](Composer& c, relax::Expr x, const proto::FxNode&) { return frontend::Mish(c, x); }},
  };
  for (const ActivationEntry& a : activations) {
    r.Register(K::kModule, a.module, Activation(a.formula));
    r.Register(K::kFunction, a.function, Activation(a.formula));
  }
  r.Register(K::kFunction, "torch.cat", ConvertCat);
  // torchvision.ops.stochastic_depth (ConvNeXt, EfficientNet): the identity in inference.
  r.Register(K::kFunction, "torch.stochastic_depth",
             [](FxContext& ctx, const proto::FxNode& node) -> absl::StatusOr<relax::Expr> {
               if (BoolArg(node, 3, "training", true))
                 return absl::UnimplementedError("stochastic_depth in training mode (export the model in eval mode)");
               return ctx.Arg(node, 0);
             });
  r.Register(K::kFunction, "torch.concat", ConvertCat);
  r.Register(K::kFunction, "torch.nn.functional.gelu", ConvertGelu);
  r.Register(K::kModule, "Linear", ConvertLinear);
  r.Register(K::kFunction, "torch.nn.functional.linear", ConvertLinear);
  r.Register(K::kModule, "Flatten", ConvertReshape);
  r.Register(K::kFunction, "torch.flatten", ConvertReshape);
  r.Register(K::kFunction, "torch.reshape", ConvertReshape);
  for (const char* m : {"view", "reshape", "flatten"}) r.Register(K::kMethod, m, ConvertReshape);
  r.Register(
      K::kFunction, "operator.floordiv", [](FxContext& ctx, const proto::FxNode& node) -> absl::StatusOr<relax::Expr> {
        if (!AreSizes(ctx, node))
          return absl::UnimplementedError("floor division is supported on sizes (x.shape[-1] // 2), not on tensors");
        return SizeArithmetic(ctx, node, "floor_divide");
      });
  for (const char* f : {"torch.masked_fill"}) r.Register(K::kFunction, f, ConvertMaskedFill);
  r.Register(K::kMethod, "masked_fill", ConvertMaskedFill);
  for (const char* op : {"triu", "tril"}) {
    r.Register(K::kFunction, absl::StrCat("torch.", op), ConvertTriangle(op));
    r.Register(K::kMethod, op, ConvertTriangle(op));
  }
  for (const char* m : {"to", "type", "float", "double", "half", "long", "int", "bool"})
    r.Register(K::kMethod, m, ConvertTo);
  r.Register(K::kFunction, "torch.rsqrt", ConvertRsqrt);
  r.Register(K::kMethod, "rsqrt", ConvertRsqrt);
  r.Register(K::kModule, "Embedding", ConvertEmbedding);
  r.Register(K::kModule, "Identity", [](FxContext& ctx, const proto::FxNode& node) { return ctx.Arg(node, 0); });
  r.Register(K::kModule, "Dropout", [](FxContext& ctx, const proto::FxNode& node) { return ctx.Arg(node, 0); });
}

}  // namespace fx
}  // namespace mlc
