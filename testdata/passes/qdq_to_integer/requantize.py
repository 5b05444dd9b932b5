# RUN: --passes=qdq-to-integer,remove-unused
# A convolution whose only use is a quantize with a scalar scale and zero point (the next
# layer's input) takes it in: mlc.int8.conv2d gets requantize = (scale, zero point) as one more
# argument and returns the quantized tensor. The convolution whose float result has another
# use (a residual add) keeps its quantize.
@I.ir_module
class Module:
    @R.function
    def main(xq: R.Tensor((1, 3, 8, 8), dtype="int8")):
        with R.dataflow():
            x = R.dequantize(xq, R.const(0.05, "float32"), R.const(3, "int8"), axis=-1)
            w = R.dequantize(metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1], R.const(0, "int8"), axis=0)
            lv = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
            lv1 = R.add(lv, metadata["relax.expr.Constant"][2])
            lv2 = R.nn.relu(lv1)
            q = R.quantize(lv2, R.const(0.25, "float32"), R.const(128, "uint8"), axis=-1, out_dtype="uint8")
            lv3 = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
            q2 = R.quantize(lv3, R.const(0.25, "float32"), R.const(-3, "int8"), axis=-1, out_dtype="int8")
            lv4 = R.add(lv3, lv3)
            gv = (q, q2, lv4)
            R.output(gv)
        return gv
# CHECK: def main(
# CHECK: q = R.call_dps_packed("mlc.int8.conv2d", (xq,
# CHECK-SAME: metadata["relax.expr.Constant"][5]), out_sinfo=R.Tensor((1, 6, 8, 8), dtype="uint8"))
# CHECK-NOT: R.quantize(
# CHECK: lv3 = R.call_dps_packed("mlc.int8.conv2d", (xq,
# CHECK-SAME: metadata["relax.expr.Constant"][10]), out_sinfo=R.Tensor((1, 6, 8, 8), dtype="float32"))
# CHECK-NEXT: R.quantize(lv3,
