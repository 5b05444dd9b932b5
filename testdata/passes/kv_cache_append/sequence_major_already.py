# RUN: --passes=kv-cache-append
# A cache whose leading axes are 1 ([1, past, 16]: sequence-major already) keeps its layout and
# only gets R.cache_append; no permute_dims is added.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, "seq", 16), dtype="float32"), past_state: R.Tensor((1, "past", 16), dtype="float32")):
        seq = T.int64()
        past = T.int64()
        with R.dataflow():
            grown = R.concat(past_state, x, axis=1)
            total = R.sum(grown, axis=[1], keepdims=False)
            gv = (total, grown)
            R.output(gv)
        return gv
# CHECK: past_state: R.Tensor((1, "past", 16), dtype="float32")
# CHECK: cache: R.Tensor((1, past + seq, 16), dtype="float32") = R.cache_append(past_state, x, axis=1)
# CHECK-NOT: R.permute_dims
