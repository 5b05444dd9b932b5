# RUN: --passes=fold-int8-dequantize
# What stays: bytes that something else reads too (the first call's, which the residual add
# takes as well), and a dequantize by another scale than the requantize's (the second call's:
# 0.5 against 0.25), whose floats are not the kernel's values.
# EXPECT: no change
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(xq: R.Tensor((1, 2, 10, 10, 8), dtype="uint8")):
        with R.dataflow():
            q = R.call_dps_packed("mlc.int8.conv2d_nchwc", (xq, metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1], metadata["relax.expr.Constant"][2], metadata["relax.expr.Constant"][3], metadata["relax.expr.Constant"][4], metadata["relax.expr.Constant"][5]), out_sinfo=R.Tensor((1, 2, 10, 10, 8), dtype="uint8"))
            d = R.dequantize(q, R.const(0.25, "float32"), R.const(2, "uint8"), axis=-1)
            p = R.nn.pad(d, pad_width=[0, 0, 0, 0, 1, 1, 1, 1, 0, 0], pad_value=0.0, pad_mode="constant")
            q2 = R.call_dps_packed("mlc.int8.conv2d_nchwc", (q, metadata["relax.expr.Constant"][0], metadata["relax.expr.Constant"][1], metadata["relax.expr.Constant"][2], metadata["relax.expr.Constant"][3], metadata["relax.expr.Constant"][4], metadata["relax.expr.Constant"][5]), out_sinfo=R.Tensor((1, 2, 10, 10, 8), dtype="uint8"))
            d2 = R.dequantize(q2, R.const(0.5, "float32"), R.const(2, "uint8"), axis=-1)
            p2 = R.nn.pad(d2, pad_width=[0, 0, 0, 0, 1, 1, 1, 1, 0, 0], pad_value=0.0, pad_mode="constant")
            gv = R.add(p, p2)
            R.output(gv)
        return gv
# CHECK: R.dequantize(q,
# CHECK: R.dequantize(q2,
