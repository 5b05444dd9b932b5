# RUN: --passes=fold-repeat-kv
# Multi-head attention without repeated keys (as many key/value heads as query heads): nothing to fold.
# EXPECT: no change
@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 4, 3, 8), dtype="float32"), k: R.Tensor((1, 4, 5, 8), dtype="float32")):
        with R.dataflow():
            kt = R.permute_dims(k, axes=[0, 1, 3, 2])
            s = R.matmul(q, kt, out_dtype="void")
            R.output(s)
        return s
# CHECK: kt: R.Tensor((1, 4, 8, 5), dtype="float32") = R.permute_dims(k, axes=[0, 1, 3, 2])
# CHECK-NEXT: s: R.Tensor((1, 4, 3, 5), dtype="float32") = R.matmul(q, kt, out_dtype="void")
