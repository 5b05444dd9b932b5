# RUN: --passes=concat-in-place
# An inception block's join: each branch is computed for the concat alone, and with batch 1
# every axis before the channel blocks is 1, so each branch is one contiguous range of the
# result. The concat becomes R.concat_in_place: the memory plan places each branch there, and
# nothing is copied. (The sum keeps the join an intermediate: a function's result is allocated
# fresh, outside the plan.)
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 4, 4, 16), dtype="float32")):
        with R.dataflow():
            a = R.nn.relu(x)
            b = R.sigmoid(x)
            c = R.tanh(x)
            joined = R.concat(a, b, c, axis=1)
            gv = R.add(joined, joined)
            R.output(gv)
        return gv
# CHECK: joined: R.Tensor((1, 6, 4, 4, 16), dtype="float32") = R.concat_in_place(a, b, c, axis=1)
