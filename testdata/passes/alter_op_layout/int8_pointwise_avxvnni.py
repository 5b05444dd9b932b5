# RUN: --passes=qdq-to-integer,alter-op-layout,remove-unused
# int8_pointwise.py on an AVX-VNNI target without AVX-512 (x86-64-v3 with avxvnni: Intel's
# cores from Alder Lake on): qdq-to-integer keeps int8 weights, in panels of 16 channels as for
# AVX-512 VNNI, in blocks of 8 channels (an AVX2 vector); the projection reads the depthwise
# convolution's uint8 blocks in place as mlc.int8.conv2d_nchwc.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3 -mattr=+avxvnni"})

    @R.function
    def main(xq: R.Tensor((1, 16, 10, 10), dtype="uint8")):
        with R.dataflow():
            x = R.dequantize(xq, R.const(0.05, "float32"), R.const(3, "uint8"), axis=-1)
            w = R.dequantize(metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1], R.const(0, "int8"), axis=0)
            lv = R.nn.conv2d(x, w)
            lv0 = R.add(lv, metadata["relax.expr.Constant"][5])
            lv1 = R.nn.relu(lv0)
            q = R.quantize(lv1, R.const(0.25, "float32"), R.const(0, "uint8"), axis=-1, out_dtype="uint8")
            d = R.dequantize(q, R.const(0.25, "float32"), R.const(0, "uint8"), axis=-1)
            lv2 = R.nn.conv2d(d, metadata["relax.expr.Constant"][2], padding=[1, 1, 1, 1], groups=32)
            lv3 = R.nn.relu(lv2)
            q2 = R.quantize(lv3, R.const(0.125, "float32"), R.const(0, "uint8"), axis=-1, out_dtype="uint8")
            d2 = R.dequantize(q2, R.const(0.125, "float32"), R.const(0, "uint8"), axis=-1)
            w2 = R.dequantize(metadata["relax.expr.Constant"][3], metadata["relax.expr.Constant"][4], R.const(0, "int8"), axis=0)
            lv4 = R.nn.conv2d(d2, w2)
            q3 = R.quantize(lv4, R.const(0.5, "float32"), R.const(128, "uint8"), axis=-1, out_dtype="uint8")
            gv = R.dequantize(q3, R.const(0.5, "float32"), R.const(128, "uint8"), axis=-1)
            R.output(gv)
        return gv
# CHECK: R.call_dps_packed("mlc.int8.conv2d", (xq,
# CHECK-SAME: out_sinfo=R.Tensor((1, 32, 10, 10), dtype="uint8"))
# CHECK-NEXT: R.dequantize(
# CHECK-NEXT: src_layout="NCHW", dst_layout="NCHW8c")
# CHECK-NEXT: groups=32, data_layout="NCHW8c", kernel_layout="OIHW8o", out_layout="NCHW8c")
# CHECK-NEXT: R.nn.relu(
# CHECK-NEXT: R.quantize(
# CHECK-SAME: out_dtype="uint8")
# CHECK-NEXT: R.call_dps_packed("mlc.int8.conv2d_nchwc", (q2_blocked,
# CHECK-SAME: out_sinfo=R.Tensor((1, 2, 10, 10, 8), dtype="uint8"))
# CHECK-NEXT: R.dequantize(
# CHECK-NEXT: src_layout="NCHW8c", dst_layout="NCHW")
