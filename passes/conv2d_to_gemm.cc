/*! \file conv2d_to_gemm.cc
 *  \brief conv2d-to-gemm: a float32 convolution (groups 1, NCHW) becomes nn.conv2d_gemm, a GEMM
 *         over its windows, so the GEMM rule's register-tile micro-kernel computes it:
 *
 *    conv2d(x, W) -> conv2d_gemm(x, W')     W' = W as [O, C*KH*KW], reshaped at compile time
 *
 *  The rows of the GEMM are the output channels (A = W', read in place); its columns the output
 *  pixels (B = the windows, im2col of the padded input). The GEMM rule packs B per column tile,
 *  and with the im2col stage inlined into that packing no window matrix is ever stored whole.
 *  The column count is rounded up to a multiple of the target's vector width, so every column
 *  tile is whole. With unit strides a column of B is a contiguous run of the padded input (see
 *  topi::Im2col), so the packing copies rather than gathers. The bias and activation after the convolution fuse into
 * its kernel as usual.
 */
#include "ir/graph/op.h"
#include "ir/graph/shape_util.h"
#include "ir/ops/op_attrs.h"
#include "ir/target/target.h"
#include "ir/tir/prim_expr_ops.h"
#include "ir/topi/topi.h"
#include "passes/pass.h"
#include "passes/pattern.h"

namespace mlc {
namespace passes {
namespace {

constexpr int64_t kWideTileMinK = 64;

/*! \brief Columns in multiples of two vectors give the GEMM rule its two-vector register tile
 *  (MR x 2 vectors of accumulators instead of MR x 1: ResNet-18's 56x56 layers went from 63-68%
 *  to 67-79% of peak, its stem from 2.07 to 1.87 ms), unless that adds more than an eighth junk
 *  columns, makes Im2col copy an input it could read in place (the junk columns of a 1x1
 *  convolution reaching past the input: MobileNetV2's 28x28 layers ran 55 -> 88 us), or the
 *  reduction is too short for the larger tile to pay (K = 27: 502 -> 556 us). */
int64_t ColumnTile(const std::vector<int64_t>& xs, const relax::Conv2DGemmAttrs& g, int64_t lanes) {
  if (xs[1] * g.kernel_size[0] * g.kernel_size[1] < kWideTileMinK) return lanes;
  absl::StatusOr<topi::Im2colLayout> one =
      topi::Im2colLayoutOf(xs, g.kernel_size, g.strides, g.padding, g.dilation, lanes);
  absl::StatusOr<topi::Im2colLayout> two =
      topi::Im2colLayoutOf(xs, g.kernel_size, g.strides, g.padding, g.dilation, 2 * lanes);
  if (!one.ok() || !two.ok()) return lanes;
  if (two->copies_input && !one->copies_input) return lanes;
  return two->columns * 8 <= one->columns * 9 ? 2 * lanes : lanes;
}

const std::vector<int64_t>* StaticFloatShape(const relax::Expr& e, size_t rank) {
  const relax::TensorStructInfoNode* t = StaticFloat32(e, rank);
  return t != nullptr ? &*t->shape : nullptr;
}

/*! \brief NCHW float32 data whose C, H and W are static: the batch may be symbolic (-1 here),
 *         as the GEMM runs once per image. */
std::optional<std::vector<int64_t>> ImageShape(const relax::Expr& e) {
  const auto* t = e->struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || t->dtype != DataType::Float32() || !t->HasKnownShape() || t->ndim != 4) return std::nullopt;
  absl::StatusOr<std::vector<int64_t>> out = relax::KnownValues(t->Dims(), {1, 2, 3}, "conv2d data");
  if (!out.ok()) return std::nullopt;
  return *out;
}

class Conv2dToGemmPass : public FunctionPass {
 public:
  std::string name() const override { return "conv2d-to-gemm"; }
  std::string description() const override {
    return "Rewrites float32 nn.conv2d (groups 1, static shapes but for the batch) as nn.conv2d_gemm with the weight "
           "flattened to "
           "[O, C*KH*KW] and the output pixels padded to whole vectors of the module's target, so the GEMM rule of "
           "default-schedule computes convolutions with its micro-kernel. Run before fuse-ops (and before "
           "dispatch-blas, which then takes only the grouped convolutions).";
  }

 protected:
  bool skip_primitive() const override { return true; }
  absl::StatusOr<relax::Function> RunOnFunction(const relax::Function& func, relax::BlockBuilder* builder) override {
    absl::StatusOr<Target> target = TargetFromAttrs(builder->module().attrs());
    if (!target.ok()) return target.status();
    int64_t lanes = target->float_lanes();
    Pattern x = Wildcard(), w = Wildcard();
    return Rewrite(
        IsOp("nn.conv2d")({x, w}), func,
        [&](const relax::Expr& matched, const Match& m, relax::BlockBuilder*) -> relax::Expr {
          const auto* call = matched.as<relax::CallNode>();
          relax::Conv2DAttrs a = *relax::ParseAttrs<relax::Conv2DAttrs>(call->attrs);
          std::optional<std::vector<int64_t>> xs = ImageShape(m[x]);
          const std::vector<int64_t>* ws = StaticFloatShape(m[w], 4);
          // Grouped convolutions are no single GEMM. Any channel count is: rows that no register
          // tile divides (a segmentation head's 21 classes) take a guarded last tile, where the
          // plain loop nest ran a 512 -> 21 1 x 1 convolution at 28 x 28 at 4% of the peak.
          if (a.groups != 1 || !a.IsDefaultLayout() || !xs || ws == nullptr || !ImageShape(matched)) return matched;
          int64_t out_channels = (*ws)[0], k = (*ws)[1] * (*ws)[2] * (*ws)[3];
          relax::Expr weights;
          if (const auto* c = m[w].as<relax::ConstantNode>()) {
            weights = relax::MakeConstant(TensorData(c->data.dtype(), {out_channels, k}, c->data.bytes()));
          } else {
            weights = relax::MakeCall(relax::GetOpOrDie("reshape"), {m[w]},
                                      relax::ToAttrs(relax::ReshapeAttrs{{out_channels, k}}));
          }
          relax::Conv2DGemmAttrs g;
          g.kernel_size = {(*ws)[2], (*ws)[3]};
          g.strides = a.strides;
          g.padding = a.padding;
          g.dilation = a.dilation;
          g.column_tile = ColumnTile(*xs, g, lanes);
          return relax::MakeCall(relax::GetOpOrDie("nn.conv2d_gemm"), {m[x], weights}, relax::ToAttrs(g));
        },
        builder);
  }
};

MLC_REGISTER_PASS(Conv2dToGemmPass);

}  // namespace
}  // namespace passes
}  // namespace mlc
