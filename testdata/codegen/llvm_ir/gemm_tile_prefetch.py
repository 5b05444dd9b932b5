# RUN: --emit=llvm --target=x86-64-v4 --passes=default-schedule
# 3x3 convolutions on AVX-512: 16 -> 32 channels at 7 x 7, 32 -> 32 at 16 x 16. At 7 x 7 seven
# pixel tiles share each weight, and the tile prefetches its weights (conv.cc,
# PrefetchesWeights): each reduction step, a memory latency ahead along the weights' stream.
# The 7 x 2 tile's working set (its weights over the whole reduction of 144 steps) fits L1, so
# it takes no chunks (those prefetch the next chunk instead: gemm_tile_prefetch_next_chunk.py).
# 7 x 2 tiles: 14 FMA chains, 2 FMA units, 400 cycles: 58 steps of 16 floats, 3712 bytes ahead.
# At 16 x 16 sixteen tiles share them, which come from L1 or L2: no prefetch of weights. Both
# prefetch the next pixel tile's data (PrefetchNextTilesData): at each step of the reduction
# loops outside the innermost, a line per pixel of the next tile (8-pixel tiles at 16 x 16:
# 512 to 960 bytes ahead). Every tile writes whole sums, and first asks for its output lines for
# writing (a write prefetch, i32 1, per line of C: 8 x 1 and 7 x 2 lines; codegen_llvm.cc), so
# lines the other core holds arrive while the reduction runs. No other prefetch.
@I.ir_module
class Module:
    @T.prim_func
    def conv2d_7x7(x: T.Buffer((T.int64(1), T.int64(1), T.int64(9), T.int64(9), T.int64(16)), "float32"), w: T.Buffer((T.int64(2), T.int64(1), T.int64(3), T.int64(3), T.int64(16), T.int64(16)), "float32"), conv2d_NCHWc: T.Buffer((T.int64(1), T.int64(2), T.int64(7), T.int64(7), T.int64(16)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for n, oc_chunk, oh, ow, oc_block, ic_outer, kh, kw, ic_inner in T.grid(T.int64(1), T.int64(2), T.int64(7), T.int64(7), T.int64(16), T.int64(1), T.int64(3), T.int64(3), T.int64(16)):
            with T.block("conv2d_NCHWc"):
                v_n, v_oc_chunk, v_oh, v_ow, v_oc_block, v_ic_outer, v_kh, v_kw, v_ic_inner = T.axis.remap("SSSSSRRRR", [n, oc_chunk, oh, ow, oc_block, ic_outer, kh, kw, ic_inner])
                with T.init():
                    conv2d_NCHWc[v_n, v_oc_chunk, v_oh, v_ow, v_oc_block] = T.float32(0.0)
                conv2d_NCHWc[v_n, v_oc_chunk, v_oh, v_ow, v_oc_block] = conv2d_NCHWc[v_n, v_oc_chunk, v_oh, v_ow, v_oc_block] + x[v_n, v_ic_outer, v_oh + v_kh, v_ow + v_kw, v_ic_inner] * w[v_oc_chunk, v_ic_outer, v_kh, v_kw, v_ic_inner, v_oc_block]

    @T.prim_func
    def conv2d_16x16(x: T.Buffer((T.int64(1), T.int64(2), T.int64(18), T.int64(18), T.int64(16)), "float32"), w: T.Buffer((T.int64(2), T.int64(2), T.int64(3), T.int64(3), T.int64(16), T.int64(16)), "float32"), conv2d_NCHWc: T.Buffer((T.int64(1), T.int64(2), T.int64(16), T.int64(16), T.int64(16)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for n, oc_chunk, oh, ow, oc_block, ic_outer, kh, kw, ic_inner in T.grid(T.int64(1), T.int64(2), T.int64(16), T.int64(16), T.int64(16), T.int64(2), T.int64(3), T.int64(3), T.int64(16)):
            with T.block("conv2d_NCHWc"):
                v_n, v_oc_chunk, v_oh, v_ow, v_oc_block, v_ic_outer, v_kh, v_kw, v_ic_inner = T.axis.remap("SSSSSRRRR", [n, oc_chunk, oh, ow, oc_block, ic_outer, kh, kw, ic_inner])
                with T.init():
                    conv2d_NCHWc[v_n, v_oc_chunk, v_oh, v_ow, v_oc_block] = T.float32(0.0)
                conv2d_NCHWc[v_n, v_oc_chunk, v_oh, v_ow, v_oc_block] = conv2d_NCHWc[v_n, v_oc_chunk, v_oh, v_ow, v_oc_block] + x[v_n, v_ic_outer, v_oh + v_kh, v_ow + v_kw, v_ic_inner] * w[v_oc_chunk, v_ic_outer, v_kh, v_kw, v_ic_inner, v_oc_block]
# CHECK: define internal void @conv2d_16x16_impl_par0(
# CHECK-NOT: @llvm.prefetch
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK-NOT: @llvm.prefetch
# CHECK: , i64 512
# CHECK-NEXT: call void @llvm.prefetch.p0(ptr readonly
# CHECK: , i64 960
# CHECK-NEXT: call void @llvm.prefetch.p0(ptr readonly
# CHECK-NOT: @llvm.prefetch
# CHECK: ; ModuleID = 'conv2d_7x7'
# CHECK: declare void @llvm.prefetch.p0(
# CHECK: define internal void @conv2d_7x7_impl_par0(
# CHECK-NOT: @llvm.prefetch
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK: , i32 1, i32 3, i32 1)
# CHECK-NOT: , i32 1, i32 3, i32 1)
# CHECK: , i64 3712
# CHECK-NEXT: call void @llvm.prefetch.p0(ptr readonly
