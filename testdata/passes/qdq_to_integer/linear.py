# RUN: --passes=qdq-to-integer,remove-unused
# Linear layers of dequantized uint8 activations and a dequantized int8 weight (zero point 0)
# become mlc.int8.dense: nn.dense of an [F, K] weight with its bias and ReLU; matmul by the
# transposed [F, K] weight (torch.onnx's Linear) with the bias added first; matmul by a
# [K, F] weight quantized per column (axis 1). The matmul whose [K, F] weight is quantized
# along K (axis 0: per row, not per output channel) stays a float matmul.
@I.ir_module
class Module:
    @R.function
    def main(xq: R.Tensor((3, 10), dtype="uint8"), yq: R.Tensor((2, 4, 10), dtype="uint8")):
        with R.dataflow():
            x = R.dequantize(xq, R.const(0.05, "float32"), R.const(7, "uint8"), axis=-1)
            w = R.dequantize(metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1], R.const(0, "int8"), axis=0)
            lv = R.nn.dense(x, w)
            lv1 = R.add(lv, metadata["relax.expr.Constant"][2])
            lv2 = R.nn.relu(lv1)
            y = R.dequantize(yq, R.const(0.02, "float32"), R.const(120, "uint8"), axis=-1)
            wt = R.permute_dims(w, axes=[1, 0])
            lv3 = R.matmul(y, wt)
            lv4 = R.add(metadata["relax.expr.Constant"][2], lv3)
            w2 = R.dequantize(metadata["relax.expr.Constant"][3], metadata["relax.expr.Constant"][1], R.const(0, "int8"), axis=1)
            lv5 = R.matmul(y, w2)
            w3 = R.dequantize(metadata["relax.expr.Constant"][3], metadata["relax.expr.Constant"][4], R.const(0, "int8"), axis=0)
            lv6 = R.matmul(y, w3)
            gv = (lv2, lv4, lv5, lv6)
            R.output(gv)
        return gv
# CHECK: def main(
# CHECK: R.call_dps_packed("mlc.int8.dense", (xq,
# CHECK-NOT: R.nn.relu
# CHECK: R.call_dps_packed("mlc.int8.dense", (yq,
# CHECK: R.call_dps_packed("mlc.int8.dense", (yq,
# CHECK: R.matmul(
