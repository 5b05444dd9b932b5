# RUN: --passes=fuse-attention,remove-unused
# The other spelling of both optional steps: the scores multiplied by a scale, and a mask that
# is true where a key is kept (where(m, s, fill)). The mask reaches mlc.attention negated
# (the kernel fills where its mask is true); k and v are as many heads as q (no repeat).
@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((2, 3, 5, 8), dtype="float32"), k: R.Tensor((2, 3, 7, 8), dtype="float32"), v: R.Tensor((2, 3, 7, 4), dtype="float32"), keep: R.Tensor((2, 1, 1, 7), dtype="bool")):
        with R.dataflow():
            kt = R.permute_dims(k, axes=[0, 1, 3, 2])
            s = R.matmul(q, kt, out_dtype="void")
            s1 = R.multiply(s, R.const(0.125, "float32"))
            s2 = R.where(keep, s1, R.const(-10000.0, "float32"))
            p = R.nn.softmax(s2, axis=-1)
            o = R.matmul(p, v, out_dtype="void")
            R.output(o)
        return o
# CHECK: R.logical_not(keep)
# CHECK: R.call_dps_packed("mlc.attention", (q, k, v, metadata["relax.expr.Constant"][0],
# CHECK-SAME: out_sinfo=R.Tensor((2, 3, 5, 4), dtype="float32"))
# CHECK-NOT: R.nn.softmax
