# RUN: --passes=alter-op-layout,remove-unused
# A ResNet-style block on an AVX-512 target: the first convolution reads the 3-channel image
# as it is (NCHW) and writes 16-channel blocks; its bias and ReLU run on the blocks; the
# second convolution reads them (weights OIHW16i16o, packed at compile time); the residual add
# and max pooling stay blocked; global pooling is blocked too, and only its tiny result goes
# back to NCHW for the reshape.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((1, 3, 16, 16), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], padding=[1, 1, 1, 1])
            lv1 = R.add(lv, metadata["relax.expr.Constant"][1])
            lv2 = R.nn.relu(lv1)
            lv3 = R.nn.conv2d(lv2, metadata["relax.expr.Constant"][2], padding=[1, 1, 1, 1])
            lv4 = R.add(lv3, lv2)
            lv5 = R.nn.max_pool2d(lv4, pool_size=[2, 2], strides=[2, 2])
            lv6 = R.nn.adaptive_avg_pool2d(lv5)
            gv = R.reshape(lv6, shape=[1, 32])
            R.output(gv)
        return gv
# CHECK: groups=1, data_layout="NCHW", kernel_layout="OIHW16o", out_layout="NCHW16c")
# CHECK-NEXT: R.add(lv_blocked, metadata["relax.expr.Constant"][1])
# CHECK-NEXT: R.nn.relu(lv1_blocked)
# CHECK-NEXT: groups=1, data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
# CHECK-NEXT: R.add(lv3_blocked, lv2_blocked)
# CHECK-NEXT: count_include_pad=True, layout="NCHW16c")
# CHECK-NEXT: R.nn.adaptive_avg_pool2d(lv5_blocked, output_size=[1, 1], layout="NCHW16c")
# CHECK-NEXT: R.layout_transform(lv6_blocked, src_layout="NCHW16c", dst_layout="NCHW")
# CHECK-NEXT: R.reshape(lv6, shape=[1, 32])
