/*! \file analyzer_test.cc
 *  \brief The integer analyzer, Halide-style: check(input, expected) prints all three on a
 *         mismatch.
 */
#include "ir/tir/analyzer.h"

#include "gtest/gtest.h"
#include "ir/graph/printer.h"
#include "ir/tir/prim_expr_ops.h"

namespace mlc {
namespace tir {
namespace {

class AnalyzerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    i = MakeVar("i");
    j0 = MakeVar("j0");
    j1 = MakeVar("j1");
    k = MakeVar("k");
    a.Bind(i, 0, 128);
    a.Bind(j0, 0, 32);
    a.Bind(j1, 0, 4);
  }
  void Check(const PrimExpr& in, const PrimExpr& expected) {
    PrimExpr out = a.Simplify(in);
    EXPECT_TRUE(ExprDeepEqual(out, expected)) << "Input: " << PrintPrimExpr(in) << "\nOutput: " << PrintPrimExpr(out)
                                              << "\nExpected: " << PrintPrimExpr(expected);
  }
  Analyzer a;
  Var i, j0, j1, k;
};

TEST_F(AnalyzerTest, CollectsLinearTerms) {
  Check(i + j0 - i, j0);
  Check((i + 3) + (j0 * 2 + 4) - 7, i + j0 * 2);
  Check(i * 2 + i * 3, i * 5);
  Check((i + j0) * 4, i * 4 + j0 * 4);
  Check(I32(3) * I32(4) + 1, I32(13));
}

TEST_F(AnalyzerTest, SplitAndFuseIndicesSimplify) {
  Check(FloorDiv(j0 * 4 + j1, 4), j0);
  Check(FloorMod(j0 * 4 + j1, 4), j1);
  Check(FloorDiv(j0 * 4 + j1 + 8, 4), j0 + 2);
  // An index taken apart and flattened again is the index (any i, no range needed).
  Check(FloorDiv(FloorDiv(i, 4) * 4 + FloorMod(i, 4), 1), i);
  Check(FloorDiv(k + 3, 9) * 18 + FloorMod(k + 3, 9) * 2 + 1, k * 2 + 7);
  // k has no range: nothing to conclude about the remainder.
  Check(FloorDiv(j0 * 4 + k, 4), j0 + FloorDiv(k, 4));
  Check(FloorMod(j0 * 8 + j1 * 2, 4), FloorMod(j1 * 2, 4));
  // A fused loop split by a factor of the divisor (rows of 4 within batches of 8): the inner
  // part (j1 < 4) stays out of the quotient, so the two parts separate.
  Check(FloorDiv(j0 * 4 + j1, 8), FloorDiv(j0, 2));
  Check(FloorMod(j0 * 4 + j1, 8), FloorMod(j0, 2) * 4 + j1);
  Check(FloorMod(FloorDiv(j0 * 4 + j1, 8), 4), FloorMod(FloorDiv(j0, 2), 4));
  // j1 * 2 reaches 6: not within one factor of 4, so floordiv(j0 * 4 + j1 * 2, 8) stays.
  Check(FloorDiv(j0 * 4 + j1 * 2, 8), FloorDiv(j0 * 4 + j1 * 2, 8));
}

TEST_F(AnalyzerTest, BoundsDecideComparisonsAndMinMax) {
  Check(j1 < 4, True());
  Check(j0 * 4 + j1 < 128, True());
  Check(j0 * 4 + j1 < 127, j0 * 4 + j1 < 127);
  Check(Min(j1, I32(10)), j1);
  Check(Max(j1, I32(10)), I32(10));
  // Overlapping bounds, decided by the difference (k has no range at all).
  Check(Min(k, k), k);
  Check(Max(k, k + 1), k + 1);
  Check(Min(j0 * 4 + 3, j0 * 4), j0 * 4);
  Check(Max(i - j1, i + 4), i + 4);
  Check(Min(i, j0), Min(i, j0));  // undecided
  EXPECT_TRUE(a.CanProve(i * 128 + j0 * 4 + j1 < 16384));
  EXPECT_FALSE(a.CanProve(i + k < 5));
  ConstIntBound b = a.Bound(FloorMod(i, 16) * 2 + 1);
  EXPECT_EQ(b.min, 1);
  EXPECT_EQ(b.max, 31);
}

TEST_F(AnalyzerTest, EvalRangeRelaxesInnerLoops) {
  std::unordered_map<const Object*, Range> relaxed = {{j1.get(), Range{I32(0), I32(4)}}};
  IntRange r = a.EvalRange(j0 * 4 + j1, relaxed);
  ASSERT_TRUE(r.min.defined());
  EXPECT_TRUE(ExprDeepEqual(r.min, j0 * 4)) << PrintPrimExpr(r.min);
  EXPECT_TRUE(ExprDeepEqual(r.max, j0 * 4 + 3)) << PrintPrimExpr(r.max);
  EXPECT_TRUE(ExprDeepEqual(a.Simplify(r.max - r.min + 1), I32(4)));
  // A negative coefficient swaps the ends.
  r = a.EvalRange(I32(10) - j1, relaxed);
  EXPECT_TRUE(ExprDeepEqual(r.min, I32(7))) << PrintPrimExpr(r.min);
  EXPECT_TRUE(ExprDeepEqual(r.max, I32(10))) << PrintPrimExpr(r.max);
  // A widening cast (int32 loops indexing an int64 layout) keeps the order: [0, 3] as int64.
  r = a.EvalRange(FloorDiv(Cast(DataType::Int64(), j1), I64(2)), relaxed);
  ASSERT_TRUE(r.min.defined()) << "a cast of a relaxed variable has a range";
  EXPECT_TRUE(ExprDeepEqual(a.Simplify(r.max - r.min), I64(1)))
      << PrintPrimExpr(r.min) << " .. " << PrintPrimExpr(r.max);
}

}  // namespace
}  // namespace tir
}  // namespace mlc
