# RUN: --passes=quantize-weights{bits=4},remove-unused
# matmul by a [K, N] constant and nn.dense by an [N, K] one become mlc.wq.matmul on 4-bit codes
# ([P, K / 8, 16, 4] uint8: N = 20 is 2 panels of 16) and scales ([P, K / 32, 16]); a weight
# whose K (40) is not whole groups of 32 and a matmul of two activations stay float.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, "seq", 64), dtype="float32"), y: R.Tensor((1, "seq", 40), dtype="float32"), a: R.Tensor((2, 64), dtype="float32")):
        seq = T.int64()
        with R.dataflow():
            h = R.matmul(x, metadata["relax.expr.Constant"][0], out_dtype="void")
            d = R.nn.dense(x, metadata["relax.expr.Constant"][1])
            f = R.matmul(y, metadata["relax.expr.Constant"][2], out_dtype="void")
            g = R.matmul(a, metadata["relax.expr.Constant"][0], out_dtype="void")
            gv = (h, d, f, g)
            R.output(gv)
        return gv
# CHECK: R.call_dps_packed("mlc.wq.matmul", (x, metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1]), out_sinfo=R.Tensor((1, seq, 20), dtype="float32"))
# CHECK: R.call_dps_packed("mlc.wq.matmul", (x, metadata["relax.expr.Constant"][2], metadata["relax.expr.Constant"][3]), out_sinfo=R.Tensor((1, seq, 20), dtype="float32"))
# CHECK: R.matmul(y,
# CHECK: R.call_dps_packed("mlc.wq.matmul", (a,
