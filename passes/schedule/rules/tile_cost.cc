#include "passes/schedule/rules/tile_cost.h"

#include <algorithm>

namespace mlc {
namespace tir {

double TileCyclesPerFma(int64_t fmas, int64_t loads, const Target& target) {
  const double f = static_cast<double>(fmas), l = static_cast<double>(loads);
  const double latency = target.fma_chains() / 2.0 + 1;
  const double cycles = std::max({f / 2, l / 2, latency, (f + l + 2) / 4});
  return cycles / f;
}

double TileCyclesPerFmaWithCopies(int64_t fmas, int64_t loads, int64_t beside, const Target& target) {
  const int64_t copies = target.AccumulatorCopies(fmas, beside);
  return TileCyclesPerFma(copies * fmas, copies * loads, target);
}

double GuardedRowCost(int64_t rows, int64_t mr, const std::function<double(int64_t)>& cycles_per_fma) {
  const int64_t full = rows / mr, tail = rows % mr;
  double cost = static_cast<double>(full * mr) * cycles_per_fma(mr);
  for (int64_t part = 1; part <= tail; part *= 2) {
    if (tail & part) cost += static_cast<double>(part) * cycles_per_fma(part);
  }
  return cost / static_cast<double>(rows);
}

}  // namespace tir
}  // namespace mlc
