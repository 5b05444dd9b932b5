# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A 128 x 256 @ 256 x 2048 matmul with ReLU (a transformer's feed-forward expansion) on AVX-512,
# in 8 x 32 register tiles. With a block of k, every tile adds to C once per block, and here
# C's rows are 8 KB apart, so the tiles' sums crowd a few cache sets (the encoder's layer ran
# 0.90 ms in blocks of 128 and 0.72 ms without on a Zen 5). ReductionBlock takes no block where
# the tile's whole k loop (B's 256 x 32 panel, A's 8 rows, the sums: 41 KB) fits in 7/8 of L1.
# On znver5 (48 KB L1) it does: one tile call over all 256 steps of k, and the ReLU runs per
# row tile (8 rows) right after it, while the tile's sums are in L1.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver5"})

    @R.function
    def main(x: R.Tensor((128, 256), dtype="float32"), w: R.Tensor((256, 2048), dtype="float32")):
        with R.dataflow():
            lv = R.matmul(x, w)
            gv = R.nn.relu(lv)
            R.output(gv)
        return gv
# (The 2 MB of weights, more than L2, have each row tile prefetch a slice of the next chunk:
# T.gemm_tile_nd, flags 32.)
# CHECK: for i0_0 in range(T.int64(16)):
# CHECK-NOT: k_0
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(8), T.int64(1), T.int64(32), T.int64(256), T.int64(2048), T.int64(0), T.int64(0), T.int64(32), T.int64(1), T.int64(256), T.int64(1), T.int64(32)
# CHECK: for ax0 in range(T.int64(8)):
# CHECK: T.max(T_matmul[v_i0, v_i1], T.float32(0.0))
