# RUN: --passes=alter-op-layout,remove-unused
# DenseNet's pattern: a convolution's result concatenated along the channels with the block's
# input, then batch norm and ReLU. Each input's channels are whole blocks of 16, so the concat
# joins the blocked tensors along the outer channel axis and the elementwise ops stay blocked:
# no round trip through NCHW (the unblocked input is converted once, as an operand).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((1, 32, 8, 8), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], padding=[1, 1, 1, 1])
            lv1 = R.concat(x, lv, axis=1)
            lv2 = R.nn.relu(lv1)
            lv3 = R.nn.conv2d(lv2, metadata["relax.expr.Constant"][1])
            R.output(lv3)
        return lv3
# CHECK: R.layout_transform(x, src_layout="NCHW", dst_layout="NCHW16c")
# CHECK: R.concat(
# CHECK-SAME: axis=1
# CHECK-NEXT: R.nn.relu(
# CHECK-NOT: dst_layout="NCHW")
# CHECK: R.nn.conv2d(lv2_blocked
