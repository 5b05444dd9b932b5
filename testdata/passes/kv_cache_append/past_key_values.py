# RUN: --passes=kv-cache-append
# Hugging Face's past_key_values form: the cache [1, 2, past, 8] is concatenated with the new
# rows along the symbolic axis and returned. The parameter becomes sequence-major
# [1, past, 2, 8], the new rows are permuted to that layout and appended with R.cache_append,
# the function returns the grown cache as it is, and the attention reads it permuted back.
@I.ir_module
class Module:
    @R.function
    def main(k: R.Tensor((1, 2, "seq", 8), dtype="float32"), past_key: R.Tensor((1, 2, "past", 8), dtype="float32")):
        seq = T.int64()
        past = T.int64()
        with R.dataflow():
            present = R.concat(past_key, k, axis=2)
            scores = R.matmul(k, R.permute_dims(present, axes=[0, 1, 3, 2]), out_dtype="void")
            gv = (scores, present)
            R.output(gv)
        return gv
# CHECK: def main(k: R.Tensor((1, 2, "seq", 8), dtype="float32"), past_key: R.Tensor((1, "past", 2, 8), dtype="float32"))
# CHECK-SAME: R.Tensor((1, "past + seq", 2, 8), dtype="float32")
# CHECK: R.permute_dims(k, axes=[0, 2, 1, 3])
# CHECK-NEXT: cache: R.Tensor((1, past + seq, 2, 8), dtype="float32") = R.cache_append(past_key,
# CHECK-SAME: axis=1)
# CHECK-NEXT: R.permute_dims(cache, axes=[0, 2, 1, 3])
# CHECK: gv: R.Tuple(R.Tensor((1, 2, seq, past + seq), dtype="float32"), R.Tensor((1, past + seq, 2, 8), dtype="float32")) = (
# CHECK-SAME: , cache)
# CHECK-NOT: R.concat
