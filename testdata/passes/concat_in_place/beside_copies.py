# RUN: --passes=concat-in-place
# ShuffleNet-V2's unit: one input is a slice and the join's one reader is the channel shuffle
# (reshape, transpose, reshape), both copies that the concat fuses with, so that the three are
# one pass. In place, the slice and the shuffle would each be a pass of their own (1.7% slower
# on two threads): the concat stays.
# EXPECT: no change
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 4, 8, 8), dtype="float32")):
        with R.dataflow():
            a = R.strided_slice(x, axes=[1], begin=[0], end=[2])
            b = R.nn.relu(x)
            c = R.concat(a, b, axis=1)
            d = R.nn.relu(x)
            e = R.sigmoid(x)
            f = R.concat(d, e, axis=1)
            g = R.reshape(f, shape=[1, 2, 4, 8, 8])
            gv = (c, g)
            R.output(gv)
        return gv
# CHECK: R.concat(a, b, axis=1)
# CHECK: R.concat(d, e, axis=1)
