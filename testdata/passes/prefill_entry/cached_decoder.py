# RUN: --passes=prefill-entry
# A decoder with a cache: ids [1, seq] -> (logits [1, seq, 16], the grown cache). @prefill is
# main returning the last position's logits only: the slice moves up through the head's matmul,
# the RMS norm (elementwise operators, a mean over the last axis) and the residual add, and
# stops at the operator that mixes positions (the cumulative sum standing in for attention).
# The cache is computed as in main.
@I.ir_module
class Module:
    @R.function
    def main(ids: R.Tensor((1, "seq"), dtype="int64"), past: R.Tensor((1, "past", 8), dtype="float32"), table: R.Tensor((16, 8), dtype="float32"), w: R.Tensor((8, 16), dtype="float32")):
        seq = T.int64()
        past = T.int64()
        with R.dataflow():
            x = R.take(table, ids, axis=0)
            present = R.concat(past, x, axis=1)
            mixed = R.cumsum(x, axis=1)
            h = R.add(x, mixed)
            sq = R.multiply(h, h)
            ms = R.mean(sq, axis=[-1], keepdims=True)
            root = R.sqrt(ms)
            normed = R.divide(h, root)
            logits = R.matmul(normed, w, out_dtype="void")
            gv = (logits, present)
            R.output(gv)
        return gv
# CHECK: def main(
# CHECK-SAME: -> R.Tuple(R.Tensor((1, "seq", 16), dtype="float32"), R.Tensor((1, "past + seq", 8), dtype="float32"))
# CHECK: def prefill(ids: R.Tensor((1, "seq"), dtype="int64"), past: R.Tensor((1, "past", 8), dtype="float32")
# CHECK-SAME: -> R.Tuple(R.Tensor((1, 1, 16), dtype="float32"), R.Tensor((1, "past + seq", 8), dtype="float32"))
# CHECK: R.concat(past, x, axis=1)
# CHECK: R.strided_slice(x, axes=[1], begin=[-1], end=[9223372036854775807], strides=[1])
# CHECK: R.strided_slice(mixed, axes=[1], begin=[-1], end=[9223372036854775807], strides=[1])
# CHECK: R.Tensor((1, 1, 1), dtype="float32") = R.mean(
# CHECK: R.Tensor((1, 1, 16), dtype="float32") = R.matmul(
