# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A 128 x 256 @ 256 x 2048 matmul with ReLU (a transformer's feed-forward expansion) on AVX-512,
# in 8 x 32 register tiles. With a block of k, every tile adds to C once per block, and here
# C's rows are 8 KB apart, so the tiles' sums crowd a few cache sets (the encoder's layer ran
# 0.90 ms in blocks of 128 and 0.72 ms without on a Zen 5). ReductionBlock takes no block where
# the tile's whole k loop (B's 256 x 32 panel, A's 8 rows, the sums: 41 KB) fits in 7/8 of L1.
# On znver4 (32 KB L1) it does not: k in blocks of 128, whose panel fits in half of L1, and
# the ReLU runs per column block (all 128 rows), after the last block of k
# (golden gemm_reduction_in_l1_znver5.py has the other side).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((128, 256), dtype="float32"), w: R.Tensor((256, 2048), dtype="float32")):
        with R.dataflow():
            lv = R.matmul(x, w)
            gv = R.nn.relu(lv)
            R.output(gv)
        return gv
# (The 2 MB of weights, more than L2, have each row tile prefetch a slice of the next chunk:
# T.gemm_tile_nd, flags 32.)
# CHECK: for k_0, i0_0 in T.grid(T.int64(2), T.int64(16)):
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(8), T.int64(1), T.int64(32), T.int64(256), T.int64(2048), T.int64(0), T.int64(0), T.int64(32), T.int64(1), T.int64(128), T.int64(1), T.int64(32)
# CHECK: for ax0 in range(T.int64(128)):
# CHECK: T.max(
