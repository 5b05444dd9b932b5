/*! \file fold_int8_dequantize.cc
 *  \brief fold-int8-dequantize: the dequantize (and the pad after it) of an int8 pointwise
 *         convolution's requantized bytes, when a float operator reads them next, goes into
 *         the convolution's call, which then writes those floats itself.
 *
 *    q = mlc.int8.conv2d_nchwc(..., requantize=(s, z[, lo, hi]))        uint8 [N, F/b, H, W, b]
 *    d = dequantize(q, s, z)                                           float32
 *    p = nn.pad(d, H and W by (t, l, bottom, r), 0)                    float32, padded
 *      ->
 *    p = mlc.int8.conv2d_nchwc(..., requantize, store=(t, l, bottom, r, 1))
 *
 *  In an int8 MobileNet every expansion's bytes were read once by a `dequantize, pad` kernel
 *  that wrote them again as padded floats for the float depthwise convolution: a pass over
 *  five bytes per element at memory speed (int8 MobileNetV2's 17 such kernels, 0.25 ms of
 *  2.4 on a Zen 5). The kernel now stores round(clamp(v / s)) * s, the floats the dequantize
 *  gives bit for bit (vm/library/int8_conv2d_nchwc.cc), inside the pad's zero border.
 *
 *  Only where the bytes have no other reader (a residual add that reads them too keeps them),
 *  the dequantize's scale and zero point are the requantize's, and the pad is a constant 0 on
 *  the spatial axes. Run after split-padding (which makes the pad) and before fuse-ops.
 */
#include <map>
#include <optional>

#include "ir/graph/op.h"
#include "ir/ops/op_attrs.h"
#include "passes/pass.h"
#include "passes/pattern.h"
#include "passes/remove_unused.h"
#include "support/tensor_data.h"

namespace mlc {
namespace passes {
namespace {

constexpr const char* kConvNchwc = "mlc.int8.conv2d_nchwc";

/*! \brief The operands of `e` when it calls mlc.int8.conv2d_nchwc with a requantize and no
 *  store yet (seven operands, the seventh float32), else nullptr. */
const relax::TupleNode* RequantizedConvOperands(const relax::Expr& e) {
  const relax::TupleNode* operands = PackedCallOperands(e, kConvNchwc);
  if (operands == nullptr || operands->fields.size() != 7) return nullptr;
  const auto* requantize = operands->fields[6].as<relax::ConstantNode>();
  if (requantize == nullptr || requantize->data.dtype() != DataType::Float32()) return nullptr;
  return operands;
}

class FoldInt8DequantizePass : public FunctionPass {
 public:
  std::string name() const override { return "fold-int8-dequantize"; }
  std::string description() const override {
    return "Folds a dequantize (and an nn.pad by zeros of H and W after it) of an mlc.int8.conv2d_nchwc's requantized "
           "bytes, read nowhere else, into the call's store operand: the kernel writes the floats the dequantize "
           "gives, bit for bit, inside the pad's border, so no kernel reads the bytes back to write them again as "
           "floats (an int8 MobileNet's float depthwise convolutions). Run after split-padding, before fuse-ops.";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& f, relax::BlockBuilder* bb) override {
    // The padded form first: once a dequantize alone is folded, the pad after it no longer
    // sees one.
    absl::StatusOr<relax::Function> padded = Fold(f, /*with_pad=*/true, bb);
    if (!padded.ok()) return padded.status();
    absl::StatusOr<relax::Function> plain = Fold(*padded, /*with_pad=*/false, bb);
    if (!plain.ok()) return plain.status();
    // The folded dequantize and the bytes' call are dead now: no kernel is built for them.
    return RemoveUnusedBindings(*plain);
  }

 private:
  static absl::StatusOr<relax::Function> Fold(const relax::Function& func, bool with_pad,
                                              relax::BlockBuilder* builder) {
    std::map<const relax::VarNode*, int> uses = CountVarUses(func);
    Pattern conv = IsOp("call_dps_packed"), scale = IsConst(), zero = IsConst();
    Pattern dequantize = IsOp("dequantize")({conv, scale, zero});
    Pattern pad = IsOp("nn.pad")({dequantize});
    return Rewrite(
        with_pad ? pad : dequantize, func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          const relax::TupleNode* operands = RequantizedConvOperands(m[conv]);
          if (operands == nullptr) return matched;
          // The bytes read by the dequantize only, the floats by the pad only.
          const auto* dq = m[dequantize].as<relax::CallNode>();
          std::vector<relax::Expr> links = {dq->args[0]};
          if (with_pad) links.push_back(matched.as<relax::CallNode>()->args[0]);
          for (const relax::Expr& link : links) {
            const auto* var = link.as<relax::VarNode>();
            if (var == nullptr || uses[var] != 1) return matched;
          }
          // The dequantize undoes the requantize: the same scale (as float32) and zero point.
          std::optional<std::vector<double>> rq = ConstantValues(operands->fields[6]);
          std::optional<std::vector<double>> s = ConstantValues(m[scale]), z = ConstantValues(m[zero]);
          if (!rq || rq->size() < 2 || !s || !z || s->size() != 1 || z->size() != 1 ||
              static_cast<float>((*s)[0]) != static_cast<float>((*rq)[0]) || (*z)[0] != (*rq)[1]) {
            return matched;
          }
          const auto* bytes = m[conv]->struct_info().as<relax::TensorStructInfoNode>();
          const auto* floats = matched->struct_info().as<relax::TensorStructInfoNode>();
          if (bytes == nullptr || floats == nullptr || floats->dtype != DataType::Float32() ||
              (bytes->dtype != DataType::UInt(8) && bytes->dtype != DataType::Int(8)) || bytes->ndim != 5) {
            return matched;
          }
          std::vector<int64_t> store = {0, 0, 0, 0, bytes->dtype == DataType::UInt(8) ? 1 : 2};
          if (with_pad) {
            absl::StatusOr<relax::PadAttrs> attrs =
                relax::ParseAttrs<relax::PadAttrs>(matched.as<relax::CallNode>()->attrs);
            if (!attrs.ok() || attrs->pad_mode != "constant" || attrs->pad_value != 0.0 ||
                attrs->pad_width.size() != 10)
              return matched;
            const std::vector<int64_t>& w = attrs->pad_width;  // (before, after) per axis of NCHWc
            if (w[0] != 0 || w[1] != 0 || w[2] != 0 || w[3] != 0 || w[8] != 0 || w[9] != 0) return matched;
            store = {w[4], w[6], w[5], w[7], store[4]};  // (top, left, bottom, right, type)
          }
          std::vector<relax::Expr> args = operands->fields;
          args.push_back(relax::MakeConstant(Int64Tensor(store)));
          return CallDpsPacked(kConvNchwc, std::move(args), matched);
        },
        builder);
  }
};

MLC_REGISTER_PASS(FoldInt8DequantizePass);

}  // namespace
}  // namespace passes
}  // namespace mlc
