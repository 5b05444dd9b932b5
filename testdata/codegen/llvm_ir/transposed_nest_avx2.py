# RUN: --emit=llvm --target=x86-64-v3
# The nests of transposed_nest_avx512.py for AVX2's 8 float lanes: blocks of 8 channels in
# to_nchw and seven_pixels, still 4 pixels in to_blocked (28 is not a multiple of 8);
# every_other_channel stays as it was (on AVX2, LLVM loads its lanes one by one). A column of
# to_blocked is 16 channels, two registers: it is transposed as two 8 x 4 groups (one 16 x 4
# shuffle kept 31 values spilled with llc -mcpu=znver3).
# CHECK: define noundef i32 @__mlc_kernel_every_other_channel(
# CHECK-NOT: shufflevector
# CHECK: load float
# CHECK: define noundef i32 @__mlc_kernel_seven_pixels(
# CHECK-NOT: masked.gather
# CHECK: load <8 x float>
# CHECK: shufflevector <32 x float>
# CHECK: store <7 x float>
# CHECK: define noundef i32 @__mlc_kernel_to_blocked(
# CHECK-NOT: masked.gather
# CHECK: load <4 x float>
# CHECK-NOT: store <16 x float>
# CHECK: shufflevector <32 x float>
# CHECK: store <8 x float>
# CHECK-NOT: store <16 x float>
# CHECK: define noundef i32 @__mlc_kernel_to_nchw(
# CHECK-NOT: masked.gather
# CHECK: @llvm.maxnum.v8f32
# CHECK: store <4 x float>
# CHECK-NOT: masked.gather
@I.ir_module
class Module:
    @T.prim_func
    def to_nchw(S: T.Buffer((4, 4, 16), "float32"), bias: T.Buffer((64,), "float32"), O: T.Buffer((64, 4), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for c in range(64):
            for p in T.vectorized(4):
                with T.block("O"):
                    vc, vp = T.axis.remap("SS", [c, p])
                    O[vc, vp] = T.max(S[vc // 16, vp, vc % 16] + bias[vc], T.float32(0))

    @T.prim_func
    def to_blocked(I: T.Buffer((16, 28), "float32"), O: T.Buffer((28, 16), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for p in range(28):
            for c in T.vectorized(16):
                with T.block("O"):
                    vp, vc = T.axis.remap("SS", [p, c])
                    O[vp, vc] = I[vc, vp]

    @T.prim_func
    def every_other_channel(S: T.Buffer((4, 128), "float32"), O: T.Buffer((64, 4), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for c in range(64):
            for p in T.vectorized(4):
                with T.block("O"):
                    vc, vp = T.axis.remap("SS", [c, p])
                    O[vc, vp] = S[vp, vc * 2]

    @T.prim_func
    def seven_pixels(S: T.Buffer((2, 7, 16), "float32"), O: T.Buffer((32, 7), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for c in range(32):
            for p in T.vectorized(7):
                with T.block("O"):
                    vc, vp = T.axis.remap("SS", [c, p])
                    O[vc, vp] = S[vc // 16, vp, vc % 16] * T.float32(2)
