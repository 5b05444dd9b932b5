# RUN: --passes=fuse-attention,remove-unused
# Keys and values that kv-cache-append keeps sequence-major ([1, past + seq, kv, dim], grown in
# place) and views head-major with permute_dims([0, 2, 1, 3]) for the attention, repeated for 2
# query heads each: mlc.attention reads the caches themselves (no transposed copy, no repeat),
# with the two layout flags of its params set.
@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 4, "seq", 8), dtype="float32"), kc: R.Tensor((1, "kv", 2, 8), dtype="float32"), vc: R.Tensor((1, "kv", 2, 8), dtype="float32")):
        seq = T.int64()
        kv = T.int64()
        with R.dataflow():
            k = R.permute_dims(kc, axes=[0, 2, 1, 3])
            v = R.permute_dims(vc, axes=[0, 2, 1, 3])
            k1 = R.reshape(k, shape=None, sinfo_args=R.Tensor((1, 2, 1, kv, 8), dtype="float32"))
            k2 = R.broadcast_to(k1, shape=None, sinfo_args=R.Tensor((1, 2, 2, kv, 8), dtype="float32"))
            k3 = R.reshape(k2, shape=None, sinfo_args=R.Tensor((1, 4, kv, 8), dtype="float32"))
            kt = R.permute_dims(k3, axes=[0, 1, 3, 2])
            s = R.matmul(q, kt, out_dtype="void")
            s1 = R.divide(s, R.const(2.8284270763397217, "float32"))
            p = R.nn.softmax(s1, axis=3)
            v1 = R.reshape(v, shape=None, sinfo_args=R.Tensor((1, 2, 1, kv, 8), dtype="float32"))
            v2 = R.broadcast_to(v1, shape=None, sinfo_args=R.Tensor((1, 2, 2, kv, 8), dtype="float32"))
            v3 = R.reshape(v2, shape=None, sinfo_args=R.Tensor((1, 4, kv, 8), dtype="float32"))
            o = R.matmul(p, v3, out_dtype="void")
            R.output(o)
        return o
# CHECK-NOT: R.permute_dims
# CHECK: R.call_dps_packed("mlc.attention", (q, kc, vc, metadata["relax.expr.Constant"][0]), out_sinfo=R.Tensor((1, 4, seq, 8), dtype="float32"))
# CHECK-NOT: R.broadcast_to
