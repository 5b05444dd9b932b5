# RUN: --passes=concat-in-place
# Concats the memory plan could not place in their results stay copies: an input that is the
# function's parameter (computed elsewhere), an input something else reads too, the same input
# twice, and a batch of two (each input is then two ranges of the result, one per image).
# EXPECT: no change
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 4, 4, 16), dtype="float32"), y: R.Tensor((2, 2, 4, 4, 16), dtype="float32")):
        with R.dataflow():
            a = R.nn.relu(x)
            b = R.sigmoid(x)
            p = R.concat(x, a, axis=1)
            q = R.concat(a, b, axis=1)
            c = R.tanh(x)
            r = R.concat(c, c, axis=1)
            d = R.nn.relu(y)
            e = R.sigmoid(y)
            s = R.concat(d, e, axis=1)
            gv = (p, q, r, s)
            R.output(gv)
        return gv
# CHECK: R.concat(x, a, axis=1)
# CHECK: R.concat(a, b, axis=1)
# CHECK: R.concat(c, c, axis=1)
# CHECK: R.concat(d, e, axis=1)
