# RUN: --emit=llvm --target=x86-64-v4
# A vectorized loop that stores contiguously but reads across its lanes (a layout transform
# between NCHW and NCHW16c, a convolution's epilogue writing NCHW) is computed along the
# other loop, whose lanes its loads read contiguously, and transposed in registers: no gathers.
# to_nchw: 4 rows (pixels) x a block of 16 channels, one zmm per pixel, 16 stores of 4.
# to_blocked: 28 pixels allow blocks of 4: 16 loads of 4 pixels, 4 stores of 16 channels.
# silu_to_blocked: SiLU (a long chain per vector) over 56 pixels takes three blocks of 16 and one
# of 8 (at blocks of 8 alone, twice the chains kept AVX-512 waiting on their latency).
# chunked_to_nchw: 112 pixels x 16 channels of floats (7 KB) is made 16 pixels at a time, each
# chunk a 1 KB tile; beyond the limit it gathered.
# every_other_channel reads every second channel: not contiguous along either loop, so it
# stays as it was, gathering.
# seven_pixels: 7 rows (a register tile of 7 pixels), stored as 7-lane vectors.
# quantized_to_nchw: a depthwise convolution's epilogue quantizing into NCHW uint8 (int8
# MobileNetV2), its scale and zero point 0-d buffers read by every element: a tile of 28
# pixels x 16 channels is 448 bytes, within the limit for bytes though not for floats.
# CHECK: define noundef i32 @__mlc_kernel_chunked_to_nchw(
# CHECK-NOT: masked.gather
# CHECK: shufflevector <256 x float>
# CHECK: store <16 x float>
# CHECK: define noundef i32 @__mlc_kernel_every_other_channel(
# CHECK: masked.gather
# CHECK: define noundef i32 @__mlc_kernel_quantized_to_nchw(
# CHECK-NOT: masked.gather
# CHECK: store <28 x i8>
# CHECK: define noundef i32 @__mlc_kernel_seven_pixels(
# CHECK-NOT: masked.gather
# CHECK: load <16 x float>
# CHECK: shufflevector <64 x float>
# CHECK: store <7 x float>
# CHECK: define noundef i32 @__mlc_kernel_silu_to_blocked(
# CHECK-NOT: masked.gather
# CHECK: load <16 x float>
# CHECK: load <8 x float>
# CHECK-NOT: masked.gather
# CHECK: define noundef i32 @__mlc_kernel_to_blocked(
# CHECK-NOT: masked.gather
# CHECK: load <4 x float>
# CHECK: shufflevector <32 x float>
# CHECK: store <16 x float>
# CHECK: define noundef i32 @__mlc_kernel_to_nchw(
# CHECK-NOT: masked.gather
# CHECK: @llvm.maxnum.v16f32
# CHECK: shufflevector <32 x float>
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
    def silu_to_blocked(I: T.Buffer((16, 56), "float32"), O: T.Buffer((56, 16), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for p in range(56):
            for c in T.vectorized(16):
                with T.block("O"):
                    vp, vc = T.axis.remap("SS", [p, c])
                    O[vp, vc] = I[vc, vp] * T.sigmoid(I[vc, vp])

    @T.prim_func
    def chunked_to_nchw(S: T.Buffer((2, 112, 16), "float32"), O: T.Buffer((32, 112), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for c in range(32):
            for p in T.vectorized(112):
                with T.block("O"):
                    vc, vp = T.axis.remap("SS", [c, p])
                    O[vc, vp] = S[vc // 16, vp, vc % 16] + T.float32(1)

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

    @T.prim_func
    def quantized_to_nchw(S: T.Buffer((1, 28, 16), "float32"), scale: T.Buffer((), "float32"), zero: T.Buffer((), "float32"), O: T.Buffer((16, 28), "uint8")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for c in range(16):
            for p in T.vectorized(28):
                with T.block("O"):
                    vc, vp = T.axis.remap("SS", [c, p])
                    O[vc, vp] = T.Cast("uint8", T.min(T.max(T.round(S[vc // 16, vp, vc % 16] / scale[()]) + zero[()], T.float32(0)), T.float32(255)))
