/*! \file cost_model.h
 *  \brief The tuner's cost model: ridge regression of log(time) on features of a tile choice
 *         (GEMM: register-tile shape and use, L1 and L2 footprints, parallel split; direct
 *         convolution: register-tile shape, register use, loads per FMA), trained
 *         on the candidates measured so far for a task and used to pick which to measure next.
 */
#ifndef MLC_TOOLS_TUNE_COST_MODEL_H_
#define MLC_TOOLS_TUNE_COST_MODEL_H_

#include <vector>

#include "ir/target/target.h"
#include "passes/schedule/rules/rules.h"

namespace mlc {
namespace tune {

std::vector<double> TileFeatures(const tir::GemmBlock& gemm, const tir::GemmTiles& tiles, const Target& target);
/*! \brief The same for a direct convolution's register tile (MR pixels x NB channel blocks). */
std::vector<double> TileFeatures(const tir::DirectConvBlock& conv, const tir::DirectConvTiles& tiles, const Target& target);

class CostModel {
 public:
  /*! \brief Fits log(seconds) ~ features (needs at least 3 samples; before that, Predict is 0). */
  void Fit(const std::vector<std::vector<double>>& features, const std::vector<double>& seconds);
  /*! \brief Predicted log(seconds): lower is better. */
  double Predict(const std::vector<double>& features) const;
  bool trained() const { return !weights_.empty(); }

 private:
  std::vector<double> weights_;
};

}  // namespace tune
}  // namespace mlc

#endif  // MLC_TOOLS_TUNE_COST_MODEL_H_
