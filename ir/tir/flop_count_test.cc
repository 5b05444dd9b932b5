// CountFlops: a matmul counts 2·M·N·K plus its epilogue, before and after a schedule that
// splits inexactly (predicates), decomposes the reduction and blockizes; loop programs
// without blocks count by their loops.
#include "ir/tir/flop_count.h"

#include "frontend/tvmscript.h"
#include "gtest/gtest.h"
#include "passes/schedule/schedule.h"
#include "support/file_util.h"

namespace mlc {
namespace tir {
namespace {

IRModule Parse(const std::string& path) {
  absl::StatusOr<std::string> text = ReadFile(path);
  EXPECT_TRUE(text.ok()) << text.status();
  absl::StatusOr<IRModule> mod = ParseTVMScript(*text, path);
  EXPECT_TRUE(mod.ok()) << mod.status();
  return *mod;
}

// 37 x 129 outputs, 33-deep reduction (two operations each), then a max per output.
constexpr int64_t kMatmulOddFlops = 2 * 37 * 129 * 33 + 37 * 129;

TEST(CountFlops, MatmulCountsTwoPerMultiplyAdd) {
  IRModule mod = Parse("testdata/schedule/matmul_odd.py");
  EXPECT_EQ(CountFlops(mod.LookupPrimFunc("mm")), kMatmulOddFlops);
}

TEST(CountFlops, ScheduleDoesNotChangeTheCount) {
  Schedule sch(Parse("testdata/schedule/matmul_odd.py"));
  BlockRV y = *sch.GetBlock("Y", "mm");
  std::vector<LoopRV> loops = *sch.GetLoops(y);
  std::vector<LoopRV> i = *sch.Split(loops[0], {std::nullopt, 8});  // 37 = 5 x 8 - 3: predicated
  std::vector<LoopRV> j = *sch.Split(loops[1], {std::nullopt, 16});
  ASSERT_TRUE(sch.Reorder({i[0], j[0], i[1], j[1]}).ok());
  ASSERT_TRUE(sch.DecomposeReduction(y, loops[2]).ok());
  // The outer block iterates 37 x 129; the inner one keeps its full domain.
  ASSERT_TRUE(sch.Blockize(loops[2]).ok());
  EXPECT_EQ(CountFlops(sch.mod().LookupPrimFunc("mm")), kMatmulOddFlops);
}

TEST(CountFlops, TensorizedTileCountsItsMultiplyAdds) {
  IRModule mod = Parse("testdata/schedule/gemm.py");
  const int64_t untensorized = CountFlops(mod.LookupPrimFunc("gemm"));
  Schedule sch(mod);
  BlockRV c = *sch.GetBlock("C", "gemm");
  std::vector<LoopRV> loops = *sch.GetLoops(c);
  std::vector<LoopRV> i = *sch.Split(loops[0], {std::nullopt, 4});
  std::vector<LoopRV> j = *sch.Split(loops[1], {std::nullopt, 16});
  ASSERT_TRUE(sch.Reorder({i[0], j[0], i[1], j[1], loops[2]}).ok());
  ASSERT_TRUE(sch.DecomposeReduction(c, i[1]).ok());
  ASSERT_TRUE(sch.Tensorize(i[1], "gemm_f32").ok());
  // The block is now one T.gemm_tile call per 4 x 16 tile, with no store of its own.
  EXPECT_EQ(CountFlops(sch.mod().LookupPrimFunc("gemm")), untensorized);
  EXPECT_EQ(untensorized, 2 * 48 * 64 * 40);
}

TEST(CountFlops, LoopProgramsWithoutBlocksCountByLoops) {
  absl::StatusOr<IRModule> mod = ParseTVMScript(R"(
@I.ir_module
class Module:
    @T.prim_func
    def linear(X: T.Buffer((784,), "float32"), W: T.Buffer((128, 784), "float32"), B: T.Buffer((128,), "float32"), Z: T.Buffer((128,), "float32")):
        Y = T.alloc_buffer((128,))
        for j, k in T.grid(128, 784):
            Y[j] = Y[j] + X[k] * W[j, k]
        for j in range(128):
            Z[j] = T.max(Y[j] + B[j], T.float32(0.0))
)",
                                                "linear.py");
  ASSERT_TRUE(mod.ok()) << mod.status();
  // 128 x 784 multiply-adds, then a bias add and a max per output.
  EXPECT_EQ(CountFlops(mod->LookupPrimFunc("linear")), 2 * 128 * 784 + 2 * 128);
}

TEST(CountFlops, OperationsUnderASymbolicExtentAreUnknown) {
  // The seeds' MLP over a batch of n rows: its dense layers compute n x 128 and n x 10 outputs,
  // a number only a call knows.
  IRModule mod = Parse("testdata/symbolic/mlp_dynamic_batch.py");
  EXPECT_EQ(CountFlops(mod.LookupPrimFunc("linear0")), -1);
  EXPECT_EQ(CountFlops(mod.LookupPrimFunc("linear1")), -1);
  // A static kernel keeps its count.
  EXPECT_EQ(CountFlops(Parse("testdata/schedule/matmul_odd.py").LookupPrimFunc("mm")), kMatmulOddFlops);
}

TEST(CountFlops, DataMovementIsZero) {
  absl::StatusOr<IRModule> mod = ParseTVMScript(R"(
@I.ir_module
class Module:
    @T.prim_func
    def transpose(A: T.Buffer((4, 8), "float32"), B: T.Buffer((8, 4), "float32")):
        for i, j in T.grid(8, 4):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vj, vi * 1 + 0]
)",
                                                "transpose.py");
  ASSERT_TRUE(mod.ok()) << mod.status();
  EXPECT_EQ(CountFlops(mod->LookupPrimFunc("transpose")), 0);
}

}  // namespace
}  // namespace tir
}  // namespace mlc
