# RUN: --passes=conv2d-to-gemm,fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A 3x3 convolution with bias and ReLU on an AVX-512 target: the weight becomes a [16, 72]
# constant, the windows (im2col of the padded input, rows of 7 + 2 junk columns) are packed
# per 32-column panel inside the GEMM's kernel, the GEMM is the register-tile micro-kernel, and
# bias + ReLU read its pixel columns.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((1, 8, 7, 7), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], padding=[1, 1, 1, 1])
            lv1 = R.add(lv, metadata["relax.expr.Constant"][1])
            gv = R.nn.relu(lv1)
            R.output(gv)
        return gv
# CHECK: T.block("pad_temp")
# CHECK: T.parallel(
# CHECK: T.block("im2col_global")
# CHECK-NOT: T.block("im2col")
# CHECK: T.gemm_tile(
# CHECK: T.max(
# CHECK: R.call_tir(cls.fused_conv2d_gemm_add_relu, (x, metadata["relax.expr.Constant"][0]
