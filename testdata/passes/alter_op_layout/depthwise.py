# RUN: --passes=alter-op-layout,remove-unused
# MobileNet's inverted residual on an AVX2 target (8 lanes): the image is converted to 8-channel
# blocks once, the expansion, the depthwise convolution (one filter per channel: OIHW8o, its
# result blocked as its data) and the projection stay blocked, the ReLUs run on the
# blocks, and only the function's result goes back to NCHW.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=haswell"})

    @R.function
    def main(x: R.Tensor((1, 8, 10, 10), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0])
            lv1 = R.nn.relu(lv)
            lv2 = R.nn.conv2d(lv1, metadata["relax.expr.Constant"][1], strides=[2, 2], padding=[1, 1, 1, 1], groups=24)
            lv3 = R.nn.relu(lv2)
            gv = R.nn.conv2d(lv3, metadata["relax.expr.Constant"][2])
            R.output(gv)
        return gv
# CHECK: R.layout_transform(x, src_layout="NCHW", dst_layout="NCHW8c")
# CHECK-NEXT: data_layout="NCHW8c", kernel_layout="OIHW8i8o", out_layout="NCHW8c")
# CHECK-NEXT: R.nn.relu(lv_blocked)
# CHECK-NEXT: groups=24, data_layout="NCHW8c", kernel_layout="OIHW8o", out_layout="NCHW8c")
# CHECK-NEXT: R.nn.relu(lv2_blocked)
# CHECK-NEXT: data_layout="NCHW8c", kernel_layout="OIHW8i8o", out_layout="NCHW8c")
# CHECK-NEXT: R.layout_transform(gv_blocked, src_layout="NCHW8c", dst_layout="NCHW")
