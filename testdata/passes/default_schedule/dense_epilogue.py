# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A dense layer with bias and ReLU: the GEMM becomes the register-tile micro-kernel (on AVX2
# 6 x 16, its last tile of the 16 rows guarded: 12 accumulators beat the 8 of a dividing 4 x 16)
# over packed 16-column panels of the weight, the epilogue runs per row tile right after it
# (k is whole in the tile, so its sums are final; the last tile's rows past 16 are guarded),
# vectorized, and the panels are parallel.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((16, 64), dtype="float32"), w: R.Tensor((32, 64), dtype="float32"), b: R.Tensor((32,), dtype="float32")):
        with R.dataflow():
            lv = R.nn.dense(x, w)
            lv1 = R.add(lv, b)
            gv = R.nn.relu(lv1)
            R.output(gv)
        return gv
# CHECK: T.parallel(
# CHECK: T.block("w_global")
# CHECK: T.gemm_tile_partial(
# CHECK-SAME: T.int64(6), T.int64(16)
# CHECK: for ax0 in range(T.int64(6)):
# CHECK: T.vectorized(T.int64(16))
# CHECK: T.max(
