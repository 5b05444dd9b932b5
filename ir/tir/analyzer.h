/*! \file analyzer.h
 *  \brief Integer arithmetic on loop-level index expressions: canonical simplification (sums
 *         of linear terms, floordiv/floormod by constants resolved with variable ranges),
 *         constant bounds, proofs of comparisons, and the symbolic range an expression covers
 *         when some variables sweep their loops. Schedules use it to rewrite indices after
 *         split and fuse, to compute the regions compute_at must produce, and to check
 *         preconditions; lowering uses it to keep indices readable.
 *
 *    Analyzer a;
 *    a.Bind(j1, 0, 4);
 *    a.Simplify(FloorDiv(j0 * 4 + j1, 4));   // j0
 *    a.Simplify(FloorMod(j0 * 4 + j1, 4));   // j1
 *
 *  Only integer expressions are rewritten; everything else is returned as it is.
 */
#ifndef MLC_IR_TIR_ANALYZER_H_
#define MLC_IR_TIR_ANALYZER_H_

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "ir/tir/buffer.h"
#include "ir/tir/prim_expr.h"
#include "ir/tir/stmt.h"

namespace mlc {
namespace tir {

/*! \brief Inclusive integer bounds; kNegInf / kPosInf mean unbounded. */
struct ConstIntBound {
  static constexpr int64_t kPosInf = int64_t{1} << 62;
  static constexpr int64_t kNegInf = -kPosInf;
  int64_t min = kNegInf;
  int64_t max = kPosInf;
  bool is_const() const { return min == max; }
  bool bounded() const { return min > kNegInf && max < kPosInf; }
};

/*! \brief A symbolic inclusive range [min, max] of an expression. */
struct IntRange {
  PrimExpr min, max;
};

class Analyzer {
 public:
  /*! \brief `var` takes values in [min, min + extent). */
  void Bind(const Var& var, int64_t min, int64_t extent);
  /*! \brief From a Range with constant min and extent; a symbolic one is ignored. */
  void Bind(const Var& var, const Range& range);
  /*! \brief Whether `var` has a known range, and that range. */
  const ConstIntBound* BoundOf(const Var& var) const;

  ConstIntBound Bound(const PrimExpr& e) const;
  /*! \brief A comparison or boolean expression that holds for every value of the bound
   *         variables (false when it cannot tell). */
  bool CanProve(const PrimExpr& cond) const;
  bool CanProveEqual(const PrimExpr& a, const PrimExpr& b) const;
  PrimExpr Simplify(const PrimExpr& e) const;

  /*! \brief The range `e` covers while each variable in `relaxed` sweeps its range, in terms
   *         of the other variables. Fails (returns undefined min) when `e` is not monotone
   *         enough in them (a floormod of a relaxed variable gives its full period). */
  IntRange EvalRange(const PrimExpr& e, const std::unordered_map<const Object*, Range>& relaxed) const;

 private:
  std::unordered_map<const Object*, ConstIntBound> bounds_;
};

/*! \brief Every expression of `stmt` simplified knowing the range of each enclosing loop with
 *  constant bounds, and inside a block the domains of its iteration variables (and whatever
 *  `outer` knows); an `if` whose condition is provable either way is resolved. Lowering runs it so that the indices a
 * schedule leaves, such as
 *  `(j0 * 16 + j1) // 16` under `for j1 in range(16)`, become `j0` before code generation. */
Stmt SimplifyWithLoopRanges(const Stmt& stmt, const Analyzer& outer = Analyzer());

/*! \brief Structural equality of scalar expressions: variables and buffers by identity. */
bool ExprDeepEqual(const PrimExpr& a, const PrimExpr& b);

}  // namespace tir
}  // namespace mlc

#endif  // MLC_IR_TIR_ANALYZER_H_
