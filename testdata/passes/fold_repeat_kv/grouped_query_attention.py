# RUN: --passes=fold-repeat-kv,remove-unused
# Grouped-query attention as Llama exports it: 2 key/value heads, each repeated for 2 of the 4
# query heads (reshape, broadcast_to, reshape) before both matmuls. After the pass both matmuls
# read k and v as they are: q and p are viewed as 2 groups of 2 * seq rows, the results viewed
# back as 4 heads, and no broadcast_to is left.
@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 4, "seq", 8), dtype="float32"), k: R.Tensor((1, 2, "kv", 8), dtype="float32"), v: R.Tensor((1, 2, "kv", 8), dtype="float32")):
        seq = T.int64()
        kv = T.int64()
        with R.dataflow():
            k1 = R.reshape(k, shape=None, sinfo_args=R.Tensor((1, 2, 1, kv, 8), dtype="float32"))
            k2 = R.broadcast_to(k1, shape=None, sinfo_args=R.Tensor((1, 2, 2, kv, 8), dtype="float32"))
            k3 = R.reshape(k2, shape=None, sinfo_args=R.Tensor((1, 4, kv, 8), dtype="float32"))
            kt = R.permute_dims(k3, axes=[0, 1, 3, 2])
            s = R.matmul(q, kt, out_dtype="void")
            p = R.nn.softmax(s, axis=3)
            v1 = R.reshape(v, shape=None, sinfo_args=R.Tensor((1, 2, 1, kv, 8), dtype="float32"))
            v2 = R.broadcast_to(v1, shape=None, sinfo_args=R.Tensor((1, 2, 2, kv, 8), dtype="float32"))
            v3 = R.reshape(v2, shape=None, sinfo_args=R.Tensor((1, 4, kv, 8), dtype="float32"))
            o = R.matmul(p, v3, out_dtype="void")
            R.output(o)
        return o
# CHECK-NOT: R.broadcast_to
# CHECK: R.reshape(q, shape=None, sinfo_args=R.Tensor((1, 2, seq * 2, 8), dtype="float32"))
# CHECK: R.permute_dims(k, axes=[0, 1, 3, 2])
# CHECK: R.Tensor((1, 2, seq * 2, kv), dtype="float32") = R.matmul(
# CHECK: shape=None, sinfo_args=R.Tensor((1, 4, seq, kv), dtype="float32"))
# CHECK: R.nn.softmax
# CHECK: R.Tensor((1, 2, seq * 2, 8), dtype="float32") = R.matmul(
# CHECK-SAME: , v, out_dtype="void")
# CHECK-NOT: R.broadcast_to
