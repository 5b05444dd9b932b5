# RUN: --passes=prefill-entry
# A decoder without a cache returns the logits alone (through the output variable): @prefill
# returns the last row [1, 1, vocab], the layer norm and the head computed for it only.
@I.ir_module
class Module:
    @R.function
    def main(ids: R.Tensor((1, "seq"), dtype="int64"), table: R.Tensor((16, 8), dtype="float32"), g: R.Tensor((8,), dtype="float32"), b: R.Tensor((8,), dtype="float32"), w: R.Tensor((8, 16), dtype="float32")):
        seq = T.int64()
        with R.dataflow():
            x = R.take(table, ids, axis=0)
            mixed = R.cumsum(x, axis=1)
            normed = R.nn.layer_norm(mixed, g, b, epsilon=1e-05)
            logits = R.matmul(normed, w, out_dtype="void")
            R.output(logits)
        return logits
# CHECK: def prefill(
# CHECK-SAME: -> R.Tensor((1, 1, 16), dtype="float32")
# CHECK: R.strided_slice(mixed, axes=[1], begin=[-1]
# CHECK-NEXT: R.nn.layer_norm(
# CHECK-NEXT: R.matmul(
