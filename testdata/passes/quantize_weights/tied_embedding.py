# RUN: --passes=quantize-weights{bits=8},remove-unused
# An embedding table [V = 40, D = 32] and a head tied to it (matmul by a constant that holds the
# table transposed, as exporters fold the transpose): the lookup becomes mlc.wq.take on the head's
# quantized copy, so both read one set of codes and scales (Constant[0] and [1] below).
@I.ir_module
class Module:
    @R.function
    def main(ids: R.Tensor((1, "seq"), dtype="int64")):
        seq = T.int64()
        with R.dataflow():
            x = R.take(metadata["relax.expr.Constant"][0], ids, axis=0)
            logits = R.matmul(x, R.permute_dims(metadata["relax.expr.Constant"][0], axes=[1, 0]), out_dtype="void")
            R.output(logits)
        return logits
# CHECK: R.call_dps_packed("mlc.wq.take", (ids, metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1], metadata["relax.expr.Constant"][2]), out_sinfo=R.Tensor((1, seq, 32), dtype="float32"))
# CHECK: R.call_dps_packed("mlc.wq.matmul", (
# CHECK-SAME: metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1]), out_sinfo=R.Tensor((1, seq, 40), dtype="float32"))
