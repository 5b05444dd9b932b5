# RUN: --passes=split-padding
# An activation that reads its input twice (SiLU's y * sigmoid(y), GELU's y * (1 + erf(y / sqrt 2))
# / 2) is a diamond that fuses with the convolution before it: the pad joins that kernel
# (EfficientNet's and MaxViT's depthwise convolutions copied their padded input otherwise).
# Where y is also read outside the diamond (a sum here), the padding stays in the convolution.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=haswell"})

    @R.function
    def main(x: R.Tensor((1, 8, 10, 10), dtype="float32")):
        with R.dataflow():
            y = R.nn.conv2d(x, metadata["relax.expr.Constant"][0])
            s = R.sigmoid(y)
            silu = R.multiply(y, s)
            a = R.nn.conv2d(silu, metadata["relax.expr.Constant"][1], padding=[1, 1, 1, 1], groups=24)
            z = R.nn.conv2d(x, metadata["relax.expr.Constant"][0])
            t = R.divide(z, R.const(1.4142135, "float32"))
            e = R.erf(t)
            u = R.add(e, R.const(1.0, "float32"))
            v = R.multiply(z, u)
            gelu = R.multiply(v, R.const(0.5, "float32"))
            b = R.nn.conv2d(gelu, metadata["relax.expr.Constant"][1], padding=[1, 1, 1, 1], groups=24)
            w = R.nn.conv2d(x, metadata["relax.expr.Constant"][0])
            ws = R.sigmoid(w)
            wsilu = R.multiply(w, ws)
            c = R.nn.conv2d(wsilu, metadata["relax.expr.Constant"][1], padding=[1, 1, 1, 1], groups=24)
            d = R.add(c, w)
            gv = (a, b, d)
            R.output(gv)
        return gv
# CHECK: R.nn.pad(silu, pad_width=[0, 0, 0, 0, 1, 1, 1, 1]
# CHECK-NEXT: padding=[0, 0, 0, 0], dilation=[1, 1], groups=24
# CHECK: R.nn.pad(gelu, pad_width=[0, 0, 0, 0, 1, 1, 1, 1]
# CHECK-NEXT: padding=[0, 0, 0, 0], dilation=[1, 1], groups=24
# CHECK: R.multiply(w, ws)
# CHECK-NEXT: padding=[1, 1, 1, 1], dilation=[1, 1], groups=24
