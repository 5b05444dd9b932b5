# RUN: --passes=fuse-attention
# The attention weights are also returned (output_attentions): they must be computed anyway,
# so the chain stays as it is.
# EXPECT: no change
@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 2, 3, 8), dtype="float32"), k: R.Tensor((1, 2, 5, 8), dtype="float32"), v: R.Tensor((1, 2, 5, 8), dtype="float32")):
        with R.dataflow():
            kt = R.permute_dims(k, axes=[0, 1, 3, 2])
            s = R.matmul(q, kt, out_dtype="void")
            p = R.nn.softmax(s, axis=3)
            o = R.matmul(p, v, out_dtype="void")
            r = (o, p)
            R.output(r)
        return r
# CHECK: R.nn.softmax(s, axis=3)
