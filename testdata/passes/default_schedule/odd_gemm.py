# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# 7 x 10 x 33: no register tile divides the extents, so the GEMM keeps its loops (LLVM
# vectorizes the dot products along k); too little work to parallelize.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((7, 33), dtype="float32"), w: R.Tensor((10, 33), dtype="float32")):
        with R.dataflow():
            gv = R.nn.dense(x, w)
            R.output(gv)
        return gv
# EXPECT: no change
# CHECK-NOT: T.gemm_tile
# CHECK-NOT: T.parallel
