# RUN: --passes=qdq-to-integer,remove-unused
# A convolution of dequantized int8 activations and a dequantized int8 weight (per-channel
# scale, zero point 0), with its bias and ReLU, becomes one mlc.int8.conv2d; the one whose
# weight has a non-zero zero point (asymmetric: not the kernel's) stays a float convolution.
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
            w2 = R.dequantize(metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1], R.const(1, "int8"), axis=0)
            lv3 = R.nn.conv2d(x, w2, padding=[1, 1, 1, 1])
            gv = (lv2, lv3)
            R.output(gv)
        return gv
# CHECK: def main(
# CHECK: R.call_dps_packed("mlc.int8.conv2d", (xq,
# CHECK-NOT: R.nn.relu
# CHECK: R.nn.conv2d(
