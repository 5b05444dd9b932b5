# RUN: --passes=fuse-attention,remove-unused
# BERT's form: no scale step (the queries were scaled before), a float mask added to the scores.
@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 2, 6, 8), dtype="float32"), k: R.Tensor((1, 2, 6, 8), dtype="float32"), v: R.Tensor((1, 2, 6, 8), dtype="float32"), bias: R.Tensor((1, 1, 1, 6), dtype="float32")):
        with R.dataflow():
            kt = R.permute_dims(k, axes=[0, 1, 3, 2])
            s = R.matmul(q, kt, out_dtype="void")
            s1 = R.add(s, bias)
            p = R.nn.softmax(s1, axis=3)
            o = R.matmul(p, v, out_dtype="void")
            R.output(o)
        return o
# CHECK: R.call_dps_packed("mlc.attention", (q, k, v, metadata["relax.expr.Constant"][0], bias), out_sinfo=R.Tensor((1, 2, 6, 8), dtype="float32"))
# CHECK-NOT: R.nn.softmax
