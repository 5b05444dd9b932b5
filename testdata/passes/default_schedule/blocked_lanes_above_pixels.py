# RUN: --passes=default-schedule,remove-unused
# An elementwise nest that reads channel-blocked data (NCHW16c) into a plain NCHW result, its
# layout transform fused in (EfficientNet-B0 int8's squeeze-excitation product, quantized back to
# NCHW uint8 for the next int8 convolution). The channel loop, which the loads take apart by 16,
# is split by 16 and its lanes move just above the vectorized pixel loop, serial, outside the
# parallel loop: codegen then computes each 16 x 56 tile along the lanes and transposes it in
# registers (testdata/codegen/llvm_ir/transposed_nest_avx512.py), where the nest as written
# gathered every 16th float (the model's ten such kernels 1.02 -> 0.31 ms on a Zen 5).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver5"})

    @T.prim_func(private=True)
    def scale_to_nchw(x: T.Buffer((T.int64(1), T.int64(9), T.int64(56), T.int64(56), T.int64(16)), "float32"), s: T.Buffer((T.int64(1), T.int64(144), T.int64(1), T.int64(1)), "float32"), y: T.Buffer((T.int64(1), T.int64(144), T.int64(56), T.int64(56)), "uint8")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i0, i1, i2, i3 in T.grid(T.int64(1), T.int64(144), T.int64(56), T.int64(56)):
            with T.block("y"):
                v_i0, v_i1, v_i2, v_i3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
                T.reads(s[v_i0, v_i1, T.int64(0), T.int64(0)], x[v_i0, v_i1 // T.int64(16), v_i2, v_i3, v_i1 % T.int64(16)])
                T.writes(y[v_i0, v_i1, v_i2, v_i3])
                y[v_i0, v_i1, v_i2, v_i3] = T.Cast("uint8", T.min(T.max(T.round(s[v_i0, v_i1, T.int64(0), T.int64(0)] * x[v_i0, v_i1 // T.int64(16), v_i2, v_i3, v_i1 % T.int64(16)]), T.float32(0.0)), T.float32(255.0)))

    @R.function
    def main(x: R.Tensor((1, 9, 56, 56, 16), dtype="float32"), s: R.Tensor((1, 144, 1, 1), dtype="float32")):
        cls = Module
        with R.dataflow():
            gv = R.call_tir(cls.scale_to_nchw, (x, s), out_sinfo=R.Tensor((1, 144, 56, 56), dtype="uint8"))
            R.output(gv)
        return gv
# CHECK: for i0_i1_0_i2_fused in T.parallel(T.int64(504)):
# CHECK-NEXT: for i1_1 in range(T.int64(16)):
# CHECK-NEXT: for i3 in T.vectorized(T.int64(56)):
# CHECK: v_i1 = T.axis.spatial(T.int64(144), i0_i1_0_i2_fused // T.int64(56) * T.int64(16) + i1_1)
