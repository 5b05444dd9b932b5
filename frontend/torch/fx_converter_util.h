/*! \file fx_converter_util.h
 *  \brief Helpers the FX converter files share: reading node arguments and module attributes,
 *         and emitting operator calls.
 */
#ifndef MLC_FRONTEND_TORCH_FX_CONVERTER_UTIL_H_
#define MLC_FRONTEND_TORCH_FX_CONVERTER_UTIL_H_

#include <string>
#include <vector>

#include "frontend/torch/fx_importer.h"

namespace mlc {
namespace fx {

/*! \brief Argument i as a value; a number becomes a scalar constant of `like`'s dtype. */
absl::StatusOr<relax::Expr> Operand(FxContext& ctx, const proto::FxNode& node, int i, DataType like);
/*! \brief The tensor dtype of a value (float32 when it has none). */
DataType DtypeOf(const relax::Expr& e);
/*! \brief The rank of a value with a static shape, else -1. */
int64_t RankOf(const relax::Expr& e);

/*! \brief An int or a tuple of ints from module attributes, as `n` values. */
std::vector<int64_t> IntsOf(const proto::FxNode& node, const std::string& name, size_t n, std::vector<int64_t> fallback);
/*! \brief A number from module attributes. */
double FloatOf(const proto::FxNode& node, const std::string& name, double fallback);
/*! \brief Numeric argument `index` (positional) or `name` (keyword) of a call, else `fallback`. */
double NumberArg(const proto::FxNode& node, int index, const std::string& name, double fallback);
/*! \brief NumberArg as an integer (saturating: an absurd value fails the caller's range check). */
int64_t IntArg(const proto::FxNode& node, int index, const std::string& name, int64_t fallback);
/*! \brief An int list argument (positional or keyword), or the remaining positional ints (x.permute(0, 2, 1)). */
std::vector<int64_t> IntListArg(const proto::FxNode& node, int index, const std::string& name);
bool BoolArg(const proto::FxNode& node, int index, const std::string& name, bool fallback);

/*! \brief A (C,) constant as (C, 1, ...) with `spatial_dims` ones, to broadcast over NCHW (or NCDHW). */
relax::Expr PerChannel(const TensorData& t, int spatial_dims = 2);


/*! \brief Registration groups (the registry's first use calls them all). */
void RegisterNNFxConverters(FxConverterRegistry& registry);
void RegisterTransformerFxConverters(FxConverterRegistry& registry);

}  // namespace fx
}  // namespace mlc

#endif  // MLC_FRONTEND_TORCH_FX_CONVERTER_UTIL_H_
