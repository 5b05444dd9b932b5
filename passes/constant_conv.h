/*! \file constant_conv.h
 *  \brief What the passes that rewrite a convolution's window at compile time (prune-conv-taps,
 *         split-conv-taps) match: an nn.conv2d of data of static NCHW shape by a constant float32
 *         OIHW weight, with its attributes and the output size per spatial axis.
 */
#ifndef MLC_PASSES_CONSTANT_CONV_H_
#define MLC_PASSES_CONSTANT_CONV_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "ir/graph/expr.h"
#include "ir/ops/op_attrs.h"
#include "support/tensor_data.h"

namespace mlc {
namespace passes {

struct ConstantConv {
  relax::Conv2DAttrs attrs;
  std::vector<int64_t> data_shape;  // N, C, H, W
  const TensorData* weight;         // O, I, KH, KW (owned by the matched constant)
  int64_t outputs[2];               // output height and width
};

/*! \brief `call` (an nn.conv2d) and `weight` (its constant weight) as a ConstantConv, or nullopt
 *  when the layouts are not the default ones, the weight is not float32 OIHW or the data's
 *  spatial shape is not static. */
inline std::optional<ConstantConv> MatchConstantConv(const relax::CallNode& call, const relax::Expr& weight) {
  absl::StatusOr<relax::Conv2DAttrs> attrs = relax::ParseAttrs<relax::Conv2DAttrs>(call.attrs);
  const auto* data = call.args[0]->struct_info().as<relax::TensorStructInfoNode>();
  const auto* constant = weight.as<relax::ConstantNode>();
  if (!attrs.ok() || !attrs->IsDefaultLayout() || constant == nullptr ||
      constant->data.dtype() != DataType::Float32() || constant->data.shape().size() != 4 || data == nullptr ||
      !data->shape || data->shape->size() != 4) {
    return std::nullopt;
  }
  ConstantConv c{*attrs, *data->shape, &constant->data, {0, 0}};
  for (int d = 0; d < 2; ++d) {
    if (c.data_shape[2 + d] < 0) return std::nullopt;
    const int64_t reach = attrs->dilation[d] * (c.weight->shape()[2 + d] - 1) + 1;
    c.outputs[d] = (c.data_shape[2 + d] + attrs->padding[d] + attrs->padding[d + 2] - reach) / attrs->strides[d] + 1;
  }
  return c;
}

}  // namespace passes
}  // namespace mlc

#endif  // MLC_PASSES_CONSTANT_CONV_H_
