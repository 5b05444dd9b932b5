/*! \file cost_model.cc */
#include "tools/tune/cost_model.h"

#include <cmath>

namespace mlc {
namespace tune {

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
