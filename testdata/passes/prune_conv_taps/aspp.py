# RUN: --passes=prune-conv-taps
# Two ASPP-style branches on a 6x6 map. Dilation 8 reaches past the map at every tap but the
# centre: the branch becomes a 1x1 convolution without padding (the weight sliced to its centre,
# constant 2). Dilation 4 reads the map at each of its taps from some output position (row o
# reads o - 4 and o + 4): nothing is dead, the convolution stays as it is.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 8, 6, 6), dtype="float32")):
        with R.dataflow():
            a = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], padding=[8, 8, 8, 8], dilation=[8, 8])
            b = R.nn.conv2d(x, metadata["relax.expr.Constant"][1], padding=[4, 4, 4, 4], dilation=[4, 4])
            gv = R.add(a, b)
            R.output(gv)
        return gv
# CHECK: a: R.Tensor((1, 4, 6, 6), dtype="float32") = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1]
# CHECK: b: R.Tensor((1, 4, 6, 6), dtype="float32") = R.nn.conv2d(x, metadata["relax.expr.Constant"][1], strides=[1, 1], padding=[4, 4, 4, 4], dilation=[4, 4]
