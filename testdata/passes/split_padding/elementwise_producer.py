# RUN: --passes=split-padding
# Data computed by elementwise operators alone (the dequantize of an int8 convolution's bytes,
# a library call's result, before a float depthwise convolution): their own kernel, which the
# pad joins, so the convolution reads its windows in place.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=haswell"})

    @R.function
    def main(xq: R.Tensor((1, 24, 10, 10), dtype="uint8")):
        with R.dataflow():
            d = R.dequantize(xq, R.const(0.25, "float32"), R.const(3, "uint8"), axis=-1)
            gv = R.nn.conv2d(d, metadata["relax.expr.Constant"][0], padding=[1, 1, 1, 1], groups=24)
            R.output(gv)
        return gv
# CHECK: R.dequantize(xq,
# CHECK-NEXT: R.nn.pad(d, pad_width=[0, 0, 0, 0, 1, 1, 1, 1]
# CHECK-NEXT: padding=[0, 0, 0, 0], dilation=[1, 1], groups=24
