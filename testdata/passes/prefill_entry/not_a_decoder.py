# RUN: --passes=prefill-entry
# An encoder over a symbolic sequence (its input is not int64 token ids) gets no @prefill: all
# of its rows are its result.
# EXPECT: no change
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, "seq", 8), dtype="float32"), w: R.Tensor((8, 16), dtype="float32")):
        seq = T.int64()
        with R.dataflow():
            y = R.matmul(x, w, out_dtype="void")
            R.output(y)
        return y
# CHECK-NOT: def prefill
