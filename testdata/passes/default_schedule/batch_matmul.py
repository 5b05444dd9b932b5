# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A batched matmul: the batch and panel loops fuse into one parallel loop over the tiles.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(a: R.Tensor((2, 16, 32), dtype="float32"), b: R.Tensor((2, 32, 16), dtype="float32")):
        with R.dataflow():
            gv = R.matmul(a, b)
            R.output(gv)
        return gv
# CHECK: T.parallel(T.int64(2))
# CHECK: T.gemm_tile
