/*! \file cost_model.cc */
#include "tools/tune/cost_model.h"

#include <cmath>

namespace mlc {
namespace tune {

std::vector<double> TileFeatures(const tir::GemmBlock& gemm, const tir::GemmTiles& t, const Target& target) {
  double vectors = static_cast<double>(t.nr) / target.float_lanes();
  double kc = t.kc > 0 ? t.kc : gemm.k;
  double nc = t.nc > 0 ? t.nc : t.nr;
  return {
      1.0,
      std::log2(static_cast<double>(t.mr)),
      std::log2(vectors),
      std::log2(kc),
      std::log2(nc),
      t.parallel_rows ? 1.0 : 0.0,
      (t.mr * vectors + vectors + 1) / target.vector_registers,  // register use
      1.0 / t.mr + 1.0 / vectors,                                 // loads per FMA
      kc * t.nr * 4 / target.l1d_bytes,                          // B panel in L1
      kc * nc * 4 / target.l2_bytes,                             // B block in L2
      static_cast<double>(gemm.k) / kc,                           // C reloads
  };
}

std::vector<double> TileFeatures(const tir::DirectConvBlock& conv, const tir::DirectConvTiles& t, const Target& target) {
  double vectors = std::ceil(static_cast<double>(conv.lanes) / target.float_lanes());
  double loads = (conv.vector_a ? t.mr * vectors : t.mr) + t.nb * vectors;
  return {
      1.0,
      std::log2(static_cast<double>(t.mr)),
      std::log2(static_cast<double>(t.nb)),
      ((t.mr + 1) * t.nb * vectors + 1) / target.vector_registers,  // register use
      loads / (t.mr * t.nb * vectors),                                // loads per FMA
      static_cast<double>(conv.rows / t.mr * (conv.blocks / t.nb)),  // tiles per output row
  };
}

void CostModel::Fit(const std::vector<std::vector<double>>& x, const std::vector<double>& seconds) {
  if (x.size() < 3) return;
  size_t d = x[0].size();
  // Normal equations (X^T X + lambda I) w = X^T y, solved by Gaussian elimination.
  std::vector<std::vector<double>> a(d, std::vector<double>(d + 1, 0.0));
  for (size_t s = 0; s < x.size(); ++s) {
    double y = std::log(seconds[s]);
    for (size_t i = 0; i < d; ++i) {
      for (size_t j = 0; j < d; ++j) a[i][j] += x[s][i] * x[s][j];
      a[i][d] += x[s][i] * y;
    }
  }
  for (size_t i = 0; i < d; ++i) a[i][i] += 1e-2;
  for (size_t c = 0; c < d; ++c) {
    size_t pivot = c;
    for (size_t r = c + 1; r < d; ++r) {
      if (std::fabs(a[r][c]) > std::fabs(a[pivot][c])) pivot = r;
    }
    std::swap(a[c], a[pivot]);
    if (std::fabs(a[c][c]) < 1e-12) continue;
    for (size_t r = 0; r < d; ++r) {
      if (r == c) continue;
      double f = a[r][c] / a[c][c];
      for (size_t k = c; k <= d; ++k) a[r][k] -= f * a[c][k];
    }
  }
  weights_.assign(d, 0.0);
  for (size_t i = 0; i < d; ++i) weights_[i] = std::fabs(a[i][i]) < 1e-12 ? 0.0 : a[i][d] / a[i][i];
}

double CostModel::Predict(const std::vector<double>& f) const {
  double y = 0;
  for (size_t i = 0; i < weights_.size() && i < f.size(); ++i) y += weights_[i] * f[i];
  return y;
}

}  // namespace tune
}  // namespace mlc
