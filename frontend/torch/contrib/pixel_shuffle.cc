/*! \file pixel_shuffle.cc
 *  \brief A converter plug-in: torch.nn.PixelShuffle (and F.pixel_shuffle), which the built-in
 *         FX converters lack, as reshape -> permute_dims -> reshape. Built as a shared library
 *         against headers only and loaded with `import --converter_plugin=` (or the pipeline's
 *         `--converter-plugin`); see docs/importers.md.
 */
#include "absl/strings/str_cat.h"
#include "frontend/torch/fx_converter_util.h"

namespace mlc {
namespace fx {
namespace {

/*! \brief (N, C*r*r, H, W) -> (N, C, H*r, W*r): out[n, c, h*r + i, w*r + j] = x[n, (c*r + i)*r + j, h, w]. */
absl::StatusOr<relax::Expr> PixelShuffle(FxContext& ctx, const proto::FxNode& node, int64_t r) {
  absl::StatusOr<relax::Expr> x = ctx.Arg(node, 0);
  if (!x.ok()) return x.status();
  const auto* t = (*x)->struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || !t->shape || t->shape->size() != 4)
    return absl::InvalidArgumentError("pixel_shuffle needs a 4-D input of static shape");
  const std::vector<int64_t>& s = *t->shape;
  if (r <= 0 || s[1] % (r * r) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("pixel_shuffle: ", s[1], " channels are not a multiple of ", r, "^2"));
  }
  const int64_t c = s[1] / (r * r);
  absl::StatusOr<relax::Expr> y =
      ctx.EmitOp("reshape", {*x}, {{"shape", std::vector<int64_t>{s[0], c, r, r, s[2], s[3]}}});
  if (y.ok()) y = ctx.EmitOp("permute_dims", {*y}, {{"axes", std::vector<int64_t>{0, 1, 4, 2, 5, 3}}});
  if (y.ok()) y = ctx.EmitOp("reshape", {*y}, {{"shape", std::vector<int64_t>{s[0], c, s[2] * r, s[3] * r}}});
  return y;
}

MLC_REGISTER_FX_CONVERTER(kModule, "PixelShuffle", [](FxContext& ctx, const proto::FxNode& node) {
  return PixelShuffle(ctx, node, IntsOf(node, "upscale_factor", 1, {0})[0]);
});
MLC_REGISTER_FX_CONVERTER(kFunction, "torch.nn.functional.pixel_shuffle",
                          [](FxContext& ctx, const proto::FxNode& node) {
                            return PixelShuffle(ctx, node, IntArg(node, 1, "upscale_factor", 0));
                          });

}  // namespace
}  // namespace fx
}  // namespace mlc
