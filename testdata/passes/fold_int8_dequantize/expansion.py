# RUN: --passes=qdq-to-integer,alter-op-layout,remove-unused,split-padding,fold-int8-dequantize
# An int8 MobileNet block: the expansion reads the depthwise layer's uint8 blocks
# (mlc.int8.conv2d_nchwc, ReLU6 and requantize fused) and the next float depthwise convolution
# reads its bytes through `dequantize, pad`. The dequantize and the pad go into the call's store
# operand (top, left, bottom, right, 1: uint8 values as floats): it returns the padded floats
# itself, and neither the bytes nor the dequantize are left.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(xq: R.Tensor((1, 16, 10, 10), dtype="uint8")):
        with R.dataflow():
            x = R.dequantize(xq, R.const(0.05, "float32"), R.const(3, "uint8"), axis=-1)
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], padding=[1, 1, 1, 1], groups=16)
            lv1 = R.nn.relu(lv)
            q = R.quantize(lv1, R.const(0.25, "float32"), R.const(0, "uint8"), axis=-1, out_dtype="uint8")
            d = R.dequantize(q, R.const(0.25, "float32"), R.const(0, "uint8"), axis=-1)
            w = R.dequantize(metadata["relax.expr.Constant"][1], metadata["relax.expr.Constant"][2], R.const(0, "int8"), axis=0)
            lv2 = R.nn.conv2d(d, w)
            lv3 = R.add(lv2, metadata["relax.expr.Constant"][3])
            lv6 = R.maximum(lv3, R.const(0.0, "float32"))
            lv4 = R.minimum(lv6, R.const(6.0, "float32"))
            q2 = R.quantize(lv4, R.const(0.125, "float32"), R.const(2, "uint8"), axis=-1, out_dtype="uint8")
            d2 = R.dequantize(q2, R.const(0.125, "float32"), R.const(2, "uint8"), axis=-1)
            lv5 = R.nn.conv2d(d2, metadata["relax.expr.Constant"][4], padding=[1, 1, 1, 1], groups=32)
            gv = R.nn.relu(lv5)
            R.output(gv)
        return gv
# CHECK: R.call_dps_packed("mlc.int8.conv2d_nchwc", (q_blocked,
# CHECK-SAME: out_sinfo=R.Tensor((1, 4, 12, 12, 8), dtype="float32"))
# CHECK-NEXT: groups=32, data_layout="NCHW8c", kernel_layout="OIHW8o", out_layout="NCHW8c")
# CHECK-NOT: R.dequantize(
