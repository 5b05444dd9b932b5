# RUN: --passes=fuse-attention,remove-unused
# GPT-2's export without a cache transposes its keys from [batch, seq, heads, dim] to
# [batch, heads, dim, seq] in one permute_dims ([0, 2, 3, 1]): the keys are x itself in the
# sequence-major layout, which mlc.attention reads as it is (params say so); no transposed copy
# is left. The mask [seq, seq] broadcasts.
@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 4, "seq", 16), dtype="float32"), x: R.Tensor((1, "seq", 4, 16), dtype="float32"), v: R.Tensor((1, 4, "seq", 16), dtype="float32"), mask: R.Tensor(("seq", "seq"), dtype="bool")):
        seq = T.int64()
        with R.dataflow():
            kt = R.permute_dims(x, axes=[0, 2, 3, 1])
            s = R.matmul(q, kt, out_dtype="void")
            s1 = R.divide(s, R.const(4.0, "float32"))
            s2 = R.where(mask, R.const(-3.4028234663852886e+38, "float32"), s1)
            p = R.nn.softmax(s2, axis=3)
            o = R.matmul(p, v, out_dtype="void")
            R.output(o)
        return o
# CHECK-NOT: R.permute_dims
# CHECK: R.call_dps_packed("mlc.attention", (q, x, v, metadata["relax.expr.Constant"][0], mask), out_sinfo=R.Tensor((1, 4, seq, 16), dtype="float32"))
# CHECK-NOT: R.nn.softmax
