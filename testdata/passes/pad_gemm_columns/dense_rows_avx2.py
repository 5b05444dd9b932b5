# RUN: --passes=pad-gemm-columns
# On an AVX2 target (8 lanes) a dense by a 1001 x 64 weight (a classifier with a background
# class) pads its weight's rows to 1008 and slices 1001 outputs back; a product with 4 or more
# rows by a 196-column weight pads to 200. A one-row product whose columns are whole half
# vectors (the few-row tile's unit: 4 here) is left alone: 1 x 60.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((2, 64), dtype="float32"), a: R.Tensor((6, 32), dtype="float32"), v: R.Tensor((1, 32), dtype="float32")):
        with R.dataflow():
            y = R.nn.dense(x, metadata["relax.expr.Constant"][0])
            p = R.matmul(a, metadata["relax.expr.Constant"][1], out_dtype="void")
            q = R.matmul(v, metadata["relax.expr.Constant"][2], out_dtype="void")
            gv = (y, p, q)
            R.output(gv)
        return gv
# CHECK: R.Tensor((2, 1008), dtype="float32") = R.nn.dense(x,
# CHECK: R.strided_slice(
# CHECK-SAME: axes=[1], begin=[0], end=[1001]
# CHECK: R.Tensor((6, 200), dtype="float32") = R.matmul(a,
# CHECK: R.strided_slice(
# CHECK-SAME: end=[196]
# CHECK: q: R.Tensor((1, 60), dtype="float32") = R.matmul(v,
