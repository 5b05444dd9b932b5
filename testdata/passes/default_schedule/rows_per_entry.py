# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# x[2, 13, 64] @ w[64, 32]: 13 rows per entry, which no tile taller than 1 divides and a tile
# may not straddle, so the rows are tiled within each entry, the last tile guarded; the batch
# loop runs inside the column blocks, so each panel of w is packed once for both entries.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v4"})

    @R.function
    def main(x: R.Tensor((2, 13, 64), dtype="float32"), w: R.Tensor((64, 32), dtype="float32")):
        with R.dataflow():
            gv = R.matmul(x, w)
            R.output(gv)
        return gv
# CHECK: for i2_0 in T.parallel(
# CHECK: T.block("w_global")
# CHECK: for i0, i1_0 in T.grid(T.int64(2), T.int64(2)):
# CHECK: T.gemm_tile_partial(
# CHECK-SAME: T.int64(8), T.int64(32)
