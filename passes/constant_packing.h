/*! \file constant_packing.h
 *  \brief The copies a scheduled PrimFunc makes of an operand into a packed layout
 *         (cache_read + transform_layout of a weight), run ahead of the calls.
 *
 *  pack-constants runs them at compile time for operands every call passes a constant for;
 *  the tuner runs them before timing a candidate, so that it times the kernel the build ships
 *  (without the copy) rather than one that repacks its weights on every call.
 */
#ifndef MLC_PASSES_CONSTANT_PACKING_H_
#define MLC_PASSES_CONSTANT_PACKING_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ir/graph/module.h"
#include "ir/tir/prim_func.h"
#include "ir/tir/stmt.h"
#include "support/tensor_data.h"

namespace mlc {
namespace passes {

/*! \brief A copy block from parameter `param` into the root-allocated buffer `packed`. */
struct ConstantPacking {
  int param = -1;
  tir::Buffer packed;
  const tir::BlockRealizeNode* realize = nullptr;
};

/*! \brief The packing copies of `f`: spatial blocks storing a parameter's element (indexed by
 *  the iteration variables) into a root allocation, the parameter used nowhere else. */
std::vector<ConstantPacking> FindConstantPackings(const tir::PrimFunc& f);

/*! \brief Runs the copy `p` of `f` over its whole domain on `value` (the parameter's data). */
absl::StatusOr<TensorData> PackConstant(const ConstantPacking& p, const tir::PrimFunc& f, const TensorData& value);

/*! \brief `f` with the packings' buffers as parameters in place of what they packed. */
tir::PrimFunc WithoutPackings(const tir::PrimFunc& f, const std::vector<ConstantPacking>& packings);

/*! \brief For each PrimFunc that `call_tir` calls in `mod`: the parameters every call passes a
 *  constant for (those pack-constants packs at compile time). */
std::map<std::string, std::set<int>> ConstantParameters(const IRModule& mod);

}  // namespace passes
}  // namespace mlc

#endif  // MLC_PASSES_CONSTANT_PACKING_H_
