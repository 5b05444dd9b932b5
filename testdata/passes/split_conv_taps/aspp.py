# RUN: --passes=split-conv-taps
# Two 3x3 branches on a 6x6 map. Dilation 4, padding 4: each off-centre tap reads the map at 2
# of the 6 output rows (row o reads o - 4 and o + 4), so (2 + 6 + 2)^2 = 100 of the 324
# (output, tap) pairs read the map: the branch becomes 9 1x1 convolutions, each over the
# outputs its tap reads (2x2 corners, 2x6 edges, the full centre), padded to 6x6 and summed.
# Dilation 1, padding 1: 256 of 324 pairs read the map: left as it is.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 8, 6, 6), dtype="float32")):
        with R.dataflow():
            a = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], padding=[4, 4, 4, 4], dilation=[4, 4])
            b = R.nn.conv2d(x, metadata["relax.expr.Constant"][1], padding=[1, 1, 1, 1])
            gv = R.add(a, b)
            R.output(gv)
        return gv
# The top-left tap (offsets -4, -4) reads x[0:2, 0:2], at outputs [4:6, 4:6].
# CHECK: R.strided_slice(x, axes=[2, 3], begin=[0, 0], end=[2, 2], strides=[1, 1])
# CHECK-NEXT: R.nn.conv2d(
# CHECK-SAME: strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1]
# CHECK-NEXT: R.nn.pad(
# CHECK-SAME: pad_width=[0, 0, 0, 0, 4, 0, 4, 0]
# The centre tap reads all of x at every output: no slice, no pad.
# CHECK: R.nn.conv2d(x, metadata["relax.expr.Constant"][4], strides=[1, 1], padding=[0, 0, 0, 0], dilation=[1, 1]
# CHECK-NEXT: R.add(
# The bottom-right tap reads x[4:6, 4:6], at outputs [0:2, 0:2]; its sum is the branch.
# CHECK: R.strided_slice(x, axes=[2, 3], begin=[4, 4], end=[6, 6], strides=[1, 1])
# CHECK: pad_width=[0, 0, 0, 0, 0, 4, 0, 4]
# CHECK-NEXT: a: R.Tensor((1, 4, 6, 6), dtype="float32") = R.add(
# CHECK-NEXT: b: R.Tensor((1, 4, 6, 6), dtype="float32") = R.nn.conv2d(x,
# CHECK-SAME: padding=[1, 1, 1, 1]
