/*! \file fx_converter_util.h
 *  \brief Helpers the FX converter files share: reading node arguments and module attributes,
 *         and emitting operator calls.
 */
#ifndef MLC_FRONTEND_TORCH_FX_CONVERTER_UTIL_H_
#define MLC_FRONTEND_TORCH_FX_CONVERTER_UTIL_H_

#include <optional>
#include <string>
#include <vector>

#include "frontend/torch/fx_importer.h"

namespace mlc {
namespace fx {

/*! \brief Argument i as a value; a number becomes a scalar constant of `like`'s dtype. */
absl::StatusOr<relax::Expr> Operand(FxContext& ctx, const proto::FxNode& node, int i, DataType like);
/*! \brief The tensor dtype of a value (float32 when it has none). */
DataType DtypeOf(const relax::Expr& e);
/*! \brief The rank of a tensor value (its shape static or symbolic), else -1. */
int64_t RankOf(const relax::Expr& e);

/*! \brief An int or a tuple of ints from module attributes, as `n` values. */
std::vector<int64_t> IntsOf(const proto::FxNode& node, const std::string& name, size_t n,
                            std::vector<int64_t> fallback);
/*! \brief A number from module attributes. */
double FloatOf(const proto::FxNode& node, const std::string& name, double fallback);
/*! \brief A bool (or an int, nonzero) from module attributes. */
bool BoolOf(const proto::FxNode& node, const std::string& name, bool fallback);
/*! \brief A string from module attributes. */
std::string StringOf(const proto::FxNode& node, const std::string& name, const std::string& fallback);
/*! \brief Numeric argument `index` (positional) or `name` (keyword) of a call, else `fallback`. */
double NumberArg(const proto::FxNode& node, int index, const std::string& name, double fallback);
/*! \brief NumberArg as an integer (saturating: an absurd value fails the caller's range check). */
int64_t IntArg(const proto::FxNode& node, int index, const std::string& name, int64_t fallback);
/*! \brief An int list argument (positional or keyword), or the remaining positional ints (x.permute(0, 2, 1)). */
std::vector<int64_t> IntListArg(const proto::FxNode& node, int index, const std::string& name);
bool BoolArg(const proto::FxNode& node, int index, const std::string& name, bool fallback);

/*! \brief A non-empty list of tensors, positional argument `index` or keyword `name`
 *  (torch.cat(tensors), torch.stack(tensors)); an error naming `op` otherwise. */
absl::StatusOr<std::vector<relax::Expr>> ValueListArg(FxContext& ctx, const proto::FxNode& node, int index,
                                                      const std::string& name, const std::string& op);

/*! \brief Sizes are values too (x.shape[1], t + 1, d // 2): an int64 scalar constant when the size
 *  is static, a shape of one value when it is symbolic. This is the size a value holds, or
 *  nullopt when it holds none. */
std::optional<tir::PrimExpr> AsDim(const relax::Expr& value);
/*! \brief A size as a value (the inverse of AsDim). */
relax::Expr DimValue(const tir::PrimExpr& dim);
/*! \brief An argument that is a size: an integer literal or a value AsDim reads. */
absl::StatusOr<tir::PrimExpr> DimArg(FxContext& ctx, const proto::FxArg& arg);
/*! \brief Whether a binary call's two operands are sizes (at least one of them a node): t + 1. */
bool AreSizes(FxContext& ctx, const proto::FxNode& node);
/*! \brief A binary operator (add, subtract, multiply, floor_divide) on two sizes, as a size. */
absl::StatusOr<relax::Expr> SizeArithmetic(FxContext& ctx, const proto::FxNode& node, const std::string& op);
/*! \brief Sizes given as the positional arguments from `first` on, or as one list there or under
 *  `keyword` (x.view(b, t, 4, 16), x.view((b, t)), torch.ones(t, t), x.expand(size=...)). */
absl::StatusOr<std::vector<tir::PrimExpr>> DimsArgs(FxContext& ctx, const proto::FxNode& node, int first,
                                                    const std::string& keyword);

/*! \brief A (C,) constant as (C, 1, ...) with `spatial_dims` ones, to broadcast over NCHW (or NCDHW). */
relax::Expr PerChannel(const TensorData& t, int spatial_dims = 2);

/*! \brief Eval-mode batch norm of x over `spatial_dims` axes after the channels, folded into
 *  x * (w / sqrt(var + eps)) + (b - mean * w / sqrt(var + eps)); no weight is 1, no bias 0. */
absl::StatusOr<relax::Expr> FoldedBatchNorm(FxContext& ctx, const relax::Expr& x, const TensorData* weight,
                                            const TensorData* bias, const TensorData& mean, const TensorData& var,
                                            double eps, int spatial_dims);

/*! \brief Resizing to the recorded output shape with PyTorch's coordinates: `mode` nearest,
 *  bilinear or bicubic (ATen's upsample_*2d: x, output_size, [align_corners,] scale_factors), or
 *  empty for F.interpolate, which names its mode (fx_nn_converters.cc). */
FxConverter Interpolate(const std::string& mode);

/*! \brief Registration groups (the registry's first use calls them all). */
void RegisterNNFxConverters(FxConverterRegistry& registry);
void RegisterTransformerFxConverters(FxConverterRegistry& registry);
void RegisterShapeFxConverters(FxConverterRegistry& registry);
void RegisterIndexingFxConverters(FxConverterRegistry& registry);
/*! \brief nn.RNN, nn.GRU, nn.LSTM (fx_recurrent_converters.cc). */
void RegisterRecurrentFxConverters(FxConverterRegistry& registry);
/*! \brief ATen operators, as make_fx records them (fx_aten_converters.cc); registered last, since
 *  many reuse the converter of the torch function with their arguments. */
void RegisterAtenFxConverters(FxConverterRegistry& registry);

}  // namespace fx
}  // namespace mlc

#endif  // MLC_FRONTEND_TORCH_FX_CONVERTER_UTIL_H_
