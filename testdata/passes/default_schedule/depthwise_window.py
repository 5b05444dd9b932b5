# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A strided depthwise convolution with bias and ReLU: the padding stays its own loop (inlined it
# would be recomputed for each of the 9 taps), the window loops are unrolled under the
# vectorized output row, channels and rows are one parallel loop, and the epilogue runs row by
# row in that loop, vectorized.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((1, 32, 56, 56), dtype="float32"), w: R.Tensor((32, 1, 3, 3), dtype="float32"), b: R.Tensor((1, 32, 1, 1), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1], groups=32)
            lv1 = R.add(lv, b)
            gv = R.nn.relu(lv1)
            R.output(gv)
        return gv
# CHECK: T.block("pad_temp")
# CHECK: T.parallel(T.int64(896))
# CHECK: T.vectorized(T.int64(28))
# CHECK: T.block("conv2d_nchw_init")
# CHECK: T.unroll(T.int64(3))
# CHECK: T.unroll(T.int64(3))
# CHECK: T.block("conv2d_nchw_update")
# CHECK: for ax0 in T.vectorized(T.int64(28)):
# CHECK-NEXT: with T.block("compute"):
# CHECK: T.max(
