# RUN: --passes=alter-op-layout,remove-unused
# 40 output channels on an AVX-512 target (16 lanes): padded to 48 (3 blocks of 16, not 5 of
# 8), the weights' extra filters zeros. The padding flows through the bias add (the bias padded
# with zeros), the ReLU, the division by a per-channel constant (padded with ones), the
# depthwise convolution (48 groups) and the max pooling; the projection back to 16 channels
# reads the padded blocks with zero taps for the extra channels (OIHW16i16o of 16 x 48). exp,
# which could make the zeros infinite, reads the real 40 channels: strided_slice of the
# unblocked tensor.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v4"})

    @R.function
    def main(x: R.Tensor((1, 16, 8, 8), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], padding=[1, 1, 1, 1])
            lv1 = R.add(lv, metadata["relax.expr.Constant"][1])
            lv2 = R.nn.relu(lv1)
            lv3 = R.divide(lv2, metadata["relax.expr.Constant"][2])
            lv4 = R.nn.conv2d(lv3, metadata["relax.expr.Constant"][3], padding=[1, 1, 1, 1], groups=40)
            lv5 = R.nn.max_pool2d(lv4, pool_size=[2, 2], strides=[2, 2])
            lv6 = R.nn.conv2d(lv5, metadata["relax.expr.Constant"][4])
            lv7 = R.exp(lv5)
            gv = (lv6, lv7)
            R.output(gv)
        return gv
# CHECK: lv_blocked: R.Tensor((1, 3, 8, 8, 16), dtype="float32") = R.nn.conv2d(blocked,
# CHECK-SAME: kernel_layout="OIHW16i16o", out_layout="NCHW16c")
# CHECK: R.add(lv_blocked,
# CHECK: R.nn.relu(lv1_blocked)
# CHECK: R.divide(lv2_blocked,
# CHECK: lv4_blocked: R.Tensor((1, 3, 10, 10, 16), dtype="float32") = R.nn.conv2d(lv3_blocked,
# CHECK-SAME: groups=48, data_layout="NCHW16c", kernel_layout="OIHW16o"
# CHECK: R.nn.max_pool2d(lv4_blocked,
# CHECK-SAME: layout="NCHW16c")
# CHECK: lv5_padded: R.Tensor((1, 48, 5, 5), dtype="float32") = R.layout_transform(lv5_blocked, src_layout="NCHW16c", dst_layout="NCHW")
# CHECK: lv5: R.Tensor((1, 40, 5, 5), dtype="float32") = R.strided_slice(lv5_padded, axes=[1], begin=[0], end=[40]
# CHECK: lv6_blocked: R.Tensor((1, 1, 5, 5, 16), dtype="float32") = R.nn.conv2d(lv5_blocked,
# CHECK: R.exp(lv5)
