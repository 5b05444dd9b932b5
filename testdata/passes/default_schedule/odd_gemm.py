# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# 7 x 10 x 33: no register tile divides the extents, so the GEMM keeps its loops with the init
# taken out of the k loop (the accumulator stays in a register and LLVM vectorizes the dot
# products along k); too little work to parallelize.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((7, 33), dtype="float32"), w: R.Tensor((10, 33), dtype="float32")):
        with R.dataflow():
            gv = R.nn.dense(x, w)
            R.output(gv)
        return gv
# CHECK-NOT: T.parallel
# CHECK: T.block("T_matmul_NT_init")
# CHECK: for k in range(T.int64(33)):
# CHECK: T.block("T_matmul_NT_update")
# CHECK-NOT: T.gemm_tile
