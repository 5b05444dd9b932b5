# RUN: --passes=qdq-to-integer,remove-unused
# SiLU after a convolution, multiply(y, sigmoid(y)) as PyTorch exports it (either order), goes
# into mlc.int8.conv2d (activation code 2 in its geometry), and with it the quantize that
# follows: one call returning uint8. A convolution whose float result has another use (a
# residual add) keeps its sigmoid and multiply.
@I.ir_module
class Module:
    @R.function
    def main(xq: R.Tensor((1, 3, 8, 8), dtype="int8")):
        with R.dataflow():
            x = R.dequantize(xq, R.const(0.05, "float32"), R.const(3, "int8"), axis=-1)
            w = R.dequantize(metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1], R.const(0, "int8"), axis=0)
            lv = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
            lv1 = R.add(lv, metadata["relax.expr.Constant"][2])
            lv2 = R.sigmoid(lv1)
            lv3 = R.multiply(lv2, lv1)
            q = R.quantize(lv3, R.const(0.25, "float32"), R.const(128, "uint8"), axis=-1, out_dtype="uint8")
            lv4 = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
            lv5 = R.sigmoid(lv4)
            lv6 = R.multiply(lv4, lv5)
            lv7 = R.add(lv4, lv6)
            gv = (q, lv7)
            R.output(gv)
        return gv
# CHECK: def main(
# CHECK: q = R.call_dps_packed("mlc.int8.conv2d", (xq,
# CHECK-SAME: out_sinfo=R.Tensor((1, 6, 8, 8), dtype="uint8"))
# CHECK: lv4 = R.call_dps_packed("mlc.int8.conv2d", (xq,
# CHECK-SAME: out_sinfo=R.Tensor((1, 6, 8, 8), dtype="float32"))
# CHECK-NEXT: R.sigmoid(lv4)
# CHECK-NEXT: R.multiply(lv4,
