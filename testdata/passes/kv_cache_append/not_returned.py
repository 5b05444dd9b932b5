# RUN: --passes=kv-cache-append
# A concat of a parameter that the function does not return is not a cache: it stays a concat
# and the signature does not change.
# EXPECT: no change
@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((1, 2, "n", 8), dtype="float32"), b: R.Tensor((1, 2, "m", 8), dtype="float32")):
        n = T.int64()
        m = T.int64()
        with R.dataflow():
            c = R.concat(a, b, axis=2)
            s = R.sum(c, axis=[2], keepdims=False)
            R.output(s)
        return s
# CHECK: R.concat(a, b, axis=2)
