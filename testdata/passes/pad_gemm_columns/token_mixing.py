# RUN: --passes=pad-gemm-columns
# On an AVX-512 target (16 lanes): MLP-Mixer's token mixing back to 196 patches (a matmul by a
# 256 x 196 weight) computes 208 columns, the weight padded with zero columns, and slices the
# 196 back. A dense with 20 outputs (its weight's rows) would pad to 32, more than a quarter
# more work, and one with 10 (a classifier head) to 16: both stay as they are.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v4"})

    @R.function
    def main(x: R.Tensor((1, 512, 256), dtype="float32"), h: R.Tensor((8, 64), dtype="float32")):
        with R.dataflow():
            y = R.matmul(x, metadata["relax.expr.Constant"][0], out_dtype="void")
            z = R.nn.dense(h, metadata["relax.expr.Constant"][1])
            c = R.nn.dense(h, metadata["relax.expr.Constant"][2])
            gv = (y, z, c)
            R.output(gv)
        return gv
# CHECK: R.Tensor((1, 512, 208), dtype="float32") = R.matmul(x, metadata["relax.expr.Constant"]
# CHECK: R.Tensor((1, 512, 196), dtype="float32") = R.strided_slice(
# CHECK-SAME: axes=[2], begin=[0], end=[196]
# CHECK: R.Tensor((8, 20), dtype="float32") = R.nn.dense(h,
# CHECK: R.Tensor((8, 10), dtype="float32") = R.nn.dense(h,
