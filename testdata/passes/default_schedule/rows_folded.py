# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# x[8, 1, 32] @ w[32, 16]: one row per batch entry, but the weight has no batch dimension, so
# the batch folds into the rows of one 8 x 16 x 32 GEMM.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((8, 1, 32), dtype="float32"), w: R.Tensor((32, 16), dtype="float32")):
        with R.dataflow():
            gv = R.matmul(x, w)
            R.output(gv)
        return gv
# CHECK: T.int64(32), T.int64(4), T.int64(16)
