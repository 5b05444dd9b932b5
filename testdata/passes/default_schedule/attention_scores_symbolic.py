# RUN: --passes=legalize,fuse-tir,default-schedule,remove-unused
# Attention's scores with the sequence symbolic ([1, heads, t, d] x [1, heads, d, s]): no register
# tile takes symbolic columns, so the GEMM keeps its loops, and the batch of one, the heads and the
# rows run as one parallel loop (the batch alone, of extent 1, would leave all threads but one idle).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver3"})

    @R.function
    def main(q: R.Tensor((1, 4, "t", 8), dtype="float32"), k: R.Tensor((1, 4, 8, "s"), dtype="float32")):
        t = T.int64()
        s = T.int64()
        with R.dataflow():
            gv = R.matmul(q, k, out_dtype="void")
            R.output(gv)
        return gv
# CHECK: T.parallel(t * T.int64(4))
# CHECK-NOT: T.parallel(T.int64(1))
