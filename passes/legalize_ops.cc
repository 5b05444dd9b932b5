/*! \file legalize_ops.cc
 *  \brief The legalization rules of the core operators, one tensor expression each from the
 *         operator library (ir/topi). PrimFuncs are named after the operator (add, dense,
 *         relu...), as the seeds show.
 */
#include <mutex>

#include "absl/strings/str_cat.h"
#include "ir/te/call_te.h"
#include "ir/op.h"
#include "ir/topi/topi.h"
#include "passes/legalize.h"

namespace mlc {
namespace passes {
namespace {

using te::Tensor;

FLegalize Unary(const std::string& name, Tensor (*f)(const Tensor&)) {
  return [name, f](relax::BlockBuilder* bb, const relax::CallNode& call) {
    return te::CallTE(bb, name, [f](const std::vector<Tensor>& t) -> absl::StatusOr<Tensor> { return f(t[0]); }, call.args);
  };
}

FLegalize Binary(const std::string& name, absl::StatusOr<Tensor> (*f)(const Tensor&, const Tensor&)) {
  return [name, f](relax::BlockBuilder* bb, const relax::CallNode& call) {
    return te::CallTE(bb, name, [f](const std::vector<Tensor>& t) { return f(t[0], t[1]); }, call.args);
  };
}

}  // namespace

void RegisterCoreLegalizations() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct BinaryRule {
      const char* op;
      const char* name;
      absl::StatusOr<Tensor> (*f)(const Tensor&, const Tensor&);
    };
    for (const BinaryRule& r : {BinaryRule{"add", "add", topi::Add}, BinaryRule{"subtract", "subtract", topi::Subtract},
                                BinaryRule{"multiply", "multiply", topi::Multiply}, BinaryRule{"divide", "divide", topi::Divide},
                                BinaryRule{"maximum", "maximum", topi::Maximum}, BinaryRule{"minimum", "minimum", topi::Minimum},
                                BinaryRule{"power", "power", topi::Power}, BinaryRule{"nn.dense", "dense", topi::Dense},
                                BinaryRule{"matmul", "matmul", topi::Matmul}}) {
      (void)RegisterLegalization(r.op, Binary(r.name, r.f));
    }
    struct UnaryRule {
      const char* op;
      const char* name;
      Tensor (*f)(const Tensor&);
    };
    for (const UnaryRule& r : {UnaryRule{"nn.relu", "relu", topi::Relu}, UnaryRule{"exp", "exp", topi::Exp},
                               UnaryRule{"log", "log", topi::Log}, UnaryRule{"sqrt", "sqrt", topi::Sqrt},
                               UnaryRule{"tanh", "tanh", topi::Tanh}, UnaryRule{"sigmoid", "sigmoid", topi::Sigmoid},
                               UnaryRule{"erf", "erf", topi::Erf}, UnaryRule{"negative", "negative", topi::Negative}}) {
      (void)RegisterLegalization(r.op, Unary(r.name, r.f));
    }
    (void)RegisterLegalization("permute_dims", [](relax::BlockBuilder* bb, const relax::CallNode& call) {
      std::vector<int64_t> axes = GetIntsAttr(call.attrs, "axes");
      return te::CallTE(bb, 
          "transpose", [axes](const std::vector<Tensor>& t) { return topi::Transpose(t[0], axes); }, call.args);
    });
    (void)RegisterLegalization("nn.conv2d", [](relax::BlockBuilder* bb, const relax::CallNode& call) {
      std::vector<int64_t> strides = GetIntsAttr(call.attrs, "strides", {1, 1}, 2);
      std::vector<int64_t> padding = GetIntsAttr(call.attrs, "padding", {0, 0, 0, 0}, 4);
      std::vector<int64_t> dilation = GetIntsAttr(call.attrs, "dilation", {1, 1}, 2);
      int64_t groups = GetIntAttr(call.attrs, "groups", 1);
      return te::CallTE(bb, 
          "conv2d",
          [=](const std::vector<Tensor>& t) { return topi::Conv2d(t[0], t[1], strides, padding, dilation, groups); },
          call.args);
    });
    for (const char* op : {"nn.max_pool2d", "nn.avg_pool2d"}) {
      bool is_max = std::string(op) == "nn.max_pool2d";
      (void)RegisterLegalization(op, [is_max](relax::BlockBuilder* bb, const relax::CallNode& call) {
        std::vector<int64_t> pool = GetIntsAttr(call.attrs, "pool_size", {1, 1}, 2);
        std::vector<int64_t> strides = GetIntsAttr(call.attrs, "strides", {1, 1}, 2);
        std::vector<int64_t> padding = GetIntsAttr(call.attrs, "padding", {0, 0, 0, 0}, 4);
        std::vector<int64_t> dilation = GetIntsAttr(call.attrs, "dilation", {1, 1}, 2);
        bool include_pad = GetIntAttr(call.attrs, "count_include_pad", 1) != 0;
        bool ceil_mode = GetIntAttr(call.attrs, "ceil_mode", 0) != 0;
        return te::CallTE(bb, 
            is_max ? "max_pool2d" : "avg_pool2d",
            [=](const std::vector<Tensor>& t) {
              return topi::Pool2d(t[0], is_max, pool, strides, padding, dilation, include_pad, ceil_mode);
            },
            call.args);
      });
    }
    (void)RegisterLegalization("nn.pad", [](relax::BlockBuilder* bb, const relax::CallNode& call) -> absl::StatusOr<relax::Expr> {
      auto it = call.attrs.find("pad_width");
      if (it == call.attrs.end() || !it->second.is<std::vector<int64_t>>()) return absl::InvalidArgumentError("pad needs pad_width");
      const std::vector<int64_t>& width = it->second.get<std::vector<int64_t>>();
      std::vector<int64_t> before, after;
      for (size_t i = 0; i + 1 < width.size(); i += 2) {
        before.push_back(width[i]);
        after.push_back(width[i + 1]);
      }
      double value = 0.0;
      auto v = call.attrs.find("pad_value");
      if (v != call.attrs.end() && v->second.is<double>()) value = v->second.get<double>();
      return te::CallTE(bb, 
          "pad",
          [=](const std::vector<Tensor>& t) { return topi::Pad(t[0], before, after, tir::Const(t[0].dtype(), value)); },
          call.args);
    });
    const std::pair<const char*, topi::ReduceOp> reductions[] = {
        {"sum", topi::ReduceOp::kSum}, {"mean", topi::ReduceOp::kMean}, {"max", topi::ReduceOp::kMax}, {"min", topi::ReduceOp::kMin}};
    for (const auto& [name, kind] : reductions) {
      topi::ReduceOp op = kind;
      (void)RegisterLegalization(name, [op](relax::BlockBuilder* bb, const relax::CallNode& call) {
        std::vector<int64_t> axes = GetIntsAttr(call.attrs, "axis");
        bool keepdims = GetIntAttr(call.attrs, "keepdims", 0) != 0;
        const char* te_names[] = {"sum", "mean", "max", "min"};
        return te::CallTE(bb, 
            te_names[static_cast<int>(op)],
            [=](const std::vector<Tensor>& t) { return topi::Reduce(t[0], op, axes, keepdims); }, call.args);
      });
    }
    (void)RegisterLegalization("nn.softmax", [](relax::BlockBuilder* bb, const relax::CallNode& call) {
      int64_t axis = GetIntAttr(call.attrs, "axis", -1);
      return te::CallTE(bb, "softmax", [=](const std::vector<Tensor>& t) { return topi::Softmax(t[0], axis); }, call.args);
    });
    (void)RegisterLegalization("nn.layer_norm", [](relax::BlockBuilder* bb, const relax::CallNode& call) {
      double epsilon = 1e-5;
      auto it = call.attrs.find("epsilon");
      if (it != call.attrs.end() && it->second.is<double>()) epsilon = it->second.get<double>();
      return te::CallTE(bb, 
          "layer_norm",
          [=](const std::vector<Tensor>& t) { return topi::LayerNorm(t[0], t[1], t[2], t[1].ndim(), epsilon); }, call.args);
    });
    (void)RegisterLegalization("strided_slice", [](relax::BlockBuilder* bb, const relax::CallNode& call) {
      std::vector<int64_t> axes = GetIntsAttr(call.attrs, "axes"), begin = GetIntsAttr(call.attrs, "begin"),
                           end = GetIntsAttr(call.attrs, "end"), strides = GetIntsAttr(call.attrs, "strides");
      return te::CallTE(bb, 
          "strided_slice",
          [=](const std::vector<Tensor>& t) { return topi::StridedSlice(t[0], axes, begin, end, strides); }, call.args);
    });
    (void)RegisterLegalization("concat", [](relax::BlockBuilder* bb, const relax::CallNode& call) {
      int64_t axis = GetIntAttr(call.attrs, "axis", 0);
      return te::CallTE(bb, "concatenate", [axis](const std::vector<Tensor>& t) { return topi::Concatenate(t, axis); }, call.args);
    });
    (void)RegisterLegalization("take", [](relax::BlockBuilder* bb, const relax::CallNode& call) {
      int64_t axis = GetIntAttr(call.attrs, "axis", 0);
      return te::CallTE(bb, "take", [axis](const std::vector<Tensor>& t) { return topi::Take(t[0], t[1], axis); }, call.args);
    });
    (void)RegisterLegalization("broadcast_to", [](relax::BlockBuilder* bb, const relax::CallNode& call) -> absl::StatusOr<relax::Expr> {
      auto it = call.attrs.find("shape");
      if (it == call.attrs.end() || !it->second.is<std::vector<int64_t>>()) return absl::InvalidArgumentError("shape is required");
      std::vector<int64_t> shape = it->second.get<std::vector<int64_t>>();
      return te::CallTE(bb, "broadcast_to", [shape](const std::vector<Tensor>& t) { return topi::BroadcastTo(t[0], shape); }, call.args);
    });
    (void)RegisterLegalization("where", [](relax::BlockBuilder* bb, const relax::CallNode& call) {
      return te::CallTE(bb, "where", [](const std::vector<Tensor>& t) { return topi::Where(t[0], t[1], t[2]); }, call.args);
    });
    (void)RegisterLegalization("astype", [](relax::BlockBuilder* bb, const relax::CallNode& call) -> absl::StatusOr<relax::Expr> {
      auto it = call.attrs.find("dtype");
      if (it == call.attrs.end() || !it->second.is<DataType>()) return absl::InvalidArgumentError("dtype is required");
      DataType dtype = it->second.get<DataType>();
      return te::CallTE(bb, 
          "cast", [dtype](const std::vector<Tensor>& t) -> absl::StatusOr<Tensor> { return topi::Cast(t[0], dtype); }, call.args);
    });
    (void)RegisterLegalization("nn.adaptive_avg_pool2d", [](relax::BlockBuilder* bb, const relax::CallNode& call) {
      return te::CallTE(bb, 
          "adaptive_avg_pool2d", [](const std::vector<Tensor>& t) { return topi::GlobalAvgPool2d(t[0]); }, call.args);
    });
    (void)RegisterLegalization("reshape", [](relax::BlockBuilder* bb, const relax::CallNode& call) -> absl::StatusOr<relax::Expr> {
      const auto* out = call.struct_info().as<relax::TensorStructInfoNode>();
      if (out == nullptr || !out->shape) return absl::InvalidArgumentError("reshape needs a static result shape");
      std::vector<int64_t> shape = *out->shape;
      return te::CallTE(bb, 
          "reshape", [shape](const std::vector<Tensor>& t) { return topi::Reshape(t[0], shape); }, call.args);
    });
    (void)RegisterLegalization("linear", [](relax::BlockBuilder* bb, const relax::CallNode& call) {
      return te::CallTE(bb, 
          "linear",
          [](const std::vector<Tensor>& t) -> absl::StatusOr<Tensor> {
            absl::StatusOr<Tensor> y = topi::Dense(t[0], t[1]);
            if (!y.ok()) return y;
            return topi::Add(*y, t[2]);
          },
          call.args);
    });
    (void)RegisterLegalization("ewise_fma", [](relax::BlockBuilder* bb, const relax::CallNode& call) {
      return te::CallTE(bb, 
          "ewise_fma", [](const std::vector<Tensor>& t) { return topi::EwiseFma(t[0], t[1], t[2]); }, call.args);
    });
  });
}

}  // namespace passes
}  // namespace mlc
