# RUN: --passes=fuse-attention,remove-unused
# Llama's attention as exported: 2 key/value heads repeated for 4 query heads (repeat_kv), the
# scores divided by sqrt(8), a causal bool mask [seq, kv] filled with float32's lowest, softmax
# over the keys. The whole chain becomes one mlc.attention call on the unrepeated k and v, with
# params {factor sqrt(8), fill, divide 1} and the mask.
@I.ir_module
class Module:
    @R.function
    def main(q: R.Tensor((1, 4, "seq", 8), dtype="float32"), k: R.Tensor((1, 2, "kv", 8), dtype="float32"), v: R.Tensor((1, 2, "kv", 8), dtype="float32"), mask: R.Tensor(("seq", "kv"), dtype="bool")):
        seq = T.int64()
        kv = T.int64()
        with R.dataflow():
            k1 = R.reshape(k, shape=None, sinfo_args=R.Tensor((1, 2, 1, kv, 8), dtype="float32"))
            k2 = R.broadcast_to(k1, shape=None, sinfo_args=R.Tensor((1, 2, 2, kv, 8), dtype="float32"))
            k3 = R.reshape(k2, shape=None, sinfo_args=R.Tensor((1, 4, kv, 8), dtype="float32"))
            kt = R.permute_dims(k3, axes=[0, 1, 3, 2])
            s = R.matmul(q, kt, out_dtype="void")
            s1 = R.divide(s, R.const(2.8284270763397217, "float32"))
            s2 = R.where(mask, R.const(-3.4028234663852886e+38, "float32"), s1)
            p = R.nn.softmax(s2, axis=3)
            v1 = R.reshape(v, shape=None, sinfo_args=R.Tensor((1, 2, 1, kv, 8), dtype="float32"))
            v2 = R.broadcast_to(v1, shape=None, sinfo_args=R.Tensor((1, 2, 2, kv, 8), dtype="float32"))
            v3 = R.reshape(v2, shape=None, sinfo_args=R.Tensor((1, 4, kv, 8), dtype="float32"))
            o = R.matmul(p, v3, out_dtype="void")
            R.output(o)
        return o
# CHECK-NOT: R.broadcast_to
# CHECK-NOT: R.nn.softmax
# CHECK: R.call_dps_packed("mlc.attention", (q, k, v, metadata["relax.expr.Constant"][0], mask), out_sinfo=R.Tensor((1, 4, seq, 8), dtype="float32"))
# CHECK-NOT: R.matmul
