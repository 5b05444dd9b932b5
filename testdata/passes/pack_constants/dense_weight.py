# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,pack-constants,remove-unused
# The scheduled dense packs its constant weight into 16-column panels: pack-constants runs
# that copy at compile time, so the kernel takes the packed (2, 64, 16) weight and has no copy.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((16, 64), dtype="float32")):
        with R.dataflow():
            gv = R.nn.dense(x, metadata["relax.expr.Constant"][0])
            R.output(gv)
        return gv
# CHECK: def dense_packed(
# CHECK-NOT: T.block("c_global")
# CHECK: T.gemm_tile
# CHECK: def main(
# CHECK: cls.dense_packed
