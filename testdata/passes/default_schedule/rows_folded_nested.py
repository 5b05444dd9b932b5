# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# x[1, 14, 14, 64] @ w[64, 32] (a channels-last 1x1 projection, as in ConvNeXt): the three
# leading axes fold into 196 rows in tiles of 7, which divide each 14-row entry. Blockize
# separates (o * 7 + i) // 14 % 14 into o // 2 % 14 and i (the analyzer's split of a fused index
# by a factor of its divisor); before that the fold failed and the GEMM kept scalar loops.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v4"})

    @R.function
    def main(x: R.Tensor((1, 14, 14, 64), dtype="float32"), w: R.Tensor((64, 32), dtype="float32")):
        with R.dataflow():
            gv = R.matmul(x, w)
            R.output(gv)
        return gv
# CHECK: T.gemm_tile(
# CHECK-SAME: T.int64(7), T.int64(32)
