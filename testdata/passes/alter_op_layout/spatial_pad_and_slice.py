# RUN: --passes=alter-op-layout,remove-unused
# Padding and slicing along the spatial axes keep the channel blocks (the lanes get no padding,
# and the sliced axes keep their positions), so split convolution taps (a slice of the input,
# a 1 x 1 convolution, the result padded back to the output and summed) never leave NCHW16c.
# The input, read by two convolutions, is converted to NCHW16c once.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v4"})

    @R.function
    def main(x: R.Tensor((1, 16, 8, 8), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0])
            lv1 = R.strided_slice(lv, axes=[-1, 2], begin=[2, 2], end=[8, 8])
            lv2 = R.nn.conv2d(lv1, metadata["relax.expr.Constant"][1])
            lv3 = R.nn.pad(lv2, pad_width=[0, 0, 0, 0, 2, 0, 2, 0])
            lv4 = R.nn.conv2d(x, metadata["relax.expr.Constant"][1])
            gv = R.add(lv3, lv4)
            R.output(gv)
        return gv
# CHECK: blocked: R.Tensor((1, 1, 8, 8, 16), dtype="float32") = R.layout_transform(x, src_layout="NCHW", dst_layout="NCHW16c")
# CHECK-NOT: R.layout_transform(x,
# CHECK: R.strided_slice(lv_blocked, axes=[3, 2], begin=[2, 2], end=[8, 8]
# CHECK: R.Tensor((1, 1, 8, 8, 16), dtype="float32") = R.nn.pad(lv2_blocked, pad_width=[0, 0, 0, 0, 2, 0, 2, 0, 0, 0]
# CHECK: R.nn.conv2d(blocked,
# CHECK: R.add(lv3_blocked, lv4_blocked)
# CHECK: R.layout_transform(gv_blocked, src_layout="NCHW16c", dst_layout="NCHW")
