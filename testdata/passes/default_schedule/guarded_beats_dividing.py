# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# 128 rows on AVX2 (16 registers): the tallest dividing tile is 4 rows x 2 vectors, 8 accumulators,
# exactly the FMA latency x pipes; a 6-row tile (12 accumulators) with a guarded 2-row tail costs
# less in the tile cost model (tile_cost.h), so the rule takes it (the encoder's 128 x 256 @
# 256 x 2048 projection on a Zen 3: 57% -> 61-64% of the peak).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((128, 256), dtype="float32"), w: R.Tensor((256, 2048), dtype="float32")):
        with R.dataflow():
            gv = R.matmul(x, w)
            R.output(gv)
        return gv
# Its 2 MB of weights are more than L2, so each row tile prefetches a slice of the next panel
# (gemm_tile_nd flags 36: 32, the next chunk, | 4, the guarded last tile; golden
# gemm_prefetch_next_weights).
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(6), T.int64(1), T.int64(16), T.int64(256), T.int64(2048), T.int64(0), T.int64(0), T.int64(36),
