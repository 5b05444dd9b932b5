# RUN: --emit=llvm --target=x86-64-v4 --passes=default-schedule
# A 3x3 convolution of 64 -> 64 channels on AVX-512 at 7 x 7. Seven pixel tiles share each
# weight, and the 7 x 2 tile's weights over the whole reduction (576 steps, 72 KB) spill L1, so
# the rule runs the reduction in chunks of one input-channel block (144 steps, 18 KB of
# weights) outside the pixel tiles, and every tile of a chunk prefetches a slice of the next
# chunk into L2 (conv.cc, WeightPrefetch::kNextChunk; flag 32 of T.gemm_tile_nd). Codegen
# finds the next chunk from the loops around the call (NextIteration): the chunk loop stepped,
# or on its last chunk the parallel loop over channel groups stepped and the chunk loop back at
# 0: one select, which LLVM hoists out of the pixel loop (the next block of input channels is
# 2304 floats, 9216 bytes, further; on the last of the 4 chunks, the next group's first). The
# 7 pixel-row tiles share a chunk, so each takes 21 of its 144 lines per block, 7 at each of
# the 3 steps of its outermost
# reduction loop (the kernel rows): 14 prefetches for locality 2 (i32 2: into L2), clamped to
# the chunk's last line. Then the next pixel tile's data (locality 3, flag 16). No prefetch of
# the weights a latency ahead (flag 8): the chunk's lines were asked for during the last one.
@I.ir_module
class Module:
    @T.prim_func
    def conv2d_chunks(x: T.Buffer((T.int64(1), T.int64(4), T.int64(9), T.int64(9), T.int64(16)), "float32"), w: T.Buffer((T.int64(4), T.int64(4), T.int64(3), T.int64(3), T.int64(16), T.int64(16)), "float32"), conv2d_NCHWc: T.Buffer((T.int64(1), T.int64(4), T.int64(7), T.int64(7), T.int64(16)), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for n, oc_chunk, oh, ow, oc_block, ic_outer, kh, kw, ic_inner in T.grid(T.int64(1), T.int64(4), T.int64(7), T.int64(7), T.int64(16), T.int64(4), T.int64(3), T.int64(3), T.int64(16)):
            with T.block("conv2d_NCHWc"):
                v_n, v_oc_chunk, v_oh, v_ow, v_oc_block, v_ic_outer, v_kh, v_kw, v_ic_inner = T.axis.remap("SSSSSRRRR", [n, oc_chunk, oh, ow, oc_block, ic_outer, kh, kw, ic_inner])
                with T.init():
                    conv2d_NCHWc[v_n, v_oc_chunk, v_oh, v_ow, v_oc_block] = T.float32(0.0)
                conv2d_NCHWc[v_n, v_oc_chunk, v_oh, v_ow, v_oc_block] = conv2d_NCHWc[v_n, v_oc_chunk, v_oh, v_ow, v_oc_block] + x[v_n, v_ic_outer, v_oh + v_kh, v_ow + v_kw, v_ic_inner] * w[v_oc_chunk, v_ic_outer, v_kh, v_kw, v_ic_inner, v_oc_block]

# CHECK: define internal void @conv2d_chunks_impl_par0(
# CHECK: , i64 9216
# CHECK-SAME: = getelementptr i8, ptr
# CHECK: = select i1
# CHECK: tile.k.body.i:
# CHECK: , i32 0, i32 2, i32 1)
# CHECK: , i32 0, i32 2, i32 1)
# CHECK: , i32 0, i32 2, i32 1)
# CHECK: , i32 0, i32 2, i32 1)
# CHECK: , i32 0, i32 2, i32 1)
# CHECK: , i32 0, i32 2, i32 1)
# CHECK: , i32 0, i32 2, i32 1)
# CHECK: , i32 0, i32 2, i32 1)
# CHECK: , i32 0, i32 2, i32 1)
# CHECK: , i32 0, i32 2, i32 1)
# CHECK: , i32 0, i32 2, i32 1)
# CHECK: , i32 0, i32 2, i32 1)
# CHECK: , i32 0, i32 2, i32 1)
# CHECK: , i32 0, i32 2, i32 1)
# CHECK-NOT: , i32 0, i32 2, i32 1)
# CHECK: , i32 0, i32 3, i32 1)
# CHECK-NOT: , i32 0, i32 2, i32 1)
# CHECK: tile.k.end.i:
