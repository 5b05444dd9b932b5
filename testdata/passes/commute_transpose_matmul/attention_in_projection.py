# RUN: --passes=commute-transpose-matmul
# PyTorch's attention transposes (batch, seq, d) to (seq, batch, d) before its in-projection:
# with symbolic dims the matmul moves before the transpose (the weight acts on the last axis).
# A static input stays as it is (its rows fold into one GEMM either way).
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("batch", "seq", 4), dtype="float32"), w: R.Tensor((4, 6), dtype="float32"), s: R.Tensor((2, 3, 4), dtype="float32")):
        batch = T.int64()
        seq = T.int64()
        with R.dataflow():
            t = R.permute_dims(x, axes=[1, 0, 2])
            y = R.matmul(t, w, out_dtype="void")
            st = R.permute_dims(s, axes=[1, 0, 2])
            v = R.matmul(st, w, out_dtype="void")
            gv = (y, v)
            R.output(gv)
        return gv
# CHECK: R.matmul(x, w, out_dtype="void")
# CHECK: R.permute_dims(
# CHECK: R.matmul(st, w, out_dtype="void")
