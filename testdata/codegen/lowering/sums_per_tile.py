# RUN: --emit=lowered --target=x86-64-v4 --passes=default-schedule
# A convolution whose epilogue writes another layout (NCHW16c back to NCHW, with bias and relu):
# the default schedule lays the tile's sums out so that one tile's are contiguous (golden
# testdata/passes/default_schedule/conv_sums_per_tile.py), and lowering allocates them per
# tile inside the parallel loop: NB = 2 blocks x MR = 14 pixels x 16 lanes, written at a stride
# of 224 floats between the blocks. In the blocked layout the tile's 2 blocks spanned
# 2 x 14 x 14 x 16 floats, all of which stayed allocated per tile. Flags 26: the tile writes
# whole sums (2), prefetches its weights (8: 14 tiles share them, conv.cc) and the next tile's
# data (16).
# CHECK: for n_oc_chunk_0_oh_ow_0_fused in T.parallel(T.int64(56)):
# CHECK-NEXT: conv2d_NCHWc = T.allocate((T.int64(448),), "float32")
# CHECK-NEXT: T.evaluate(T.gemm_tile_nd(T.address_of(conv2d_NCHWc[T.int64(0)]), T.address_of(x[
# CHECK-SAME: T.int64(16), T.int64(1024), T.int64(224), T.int64(26)
@I.ir_module
class Module:
    @T.prim_func
    def conv_nchw_out(x: T.Buffer((T.int64(1), T.int64(4), T.int64(14), T.int64(14), T.int64(16)), "float32"), w: T.Buffer((T.int64(8), T.int64(4), T.int64(1), T.int64(1), T.int64(16), T.int64(16)), "float32"), b: T.Buffer((T.int64(1), T.int64(8), T.int64(1), T.int64(1), T.int64(16)), "float32"), T_layout_trans: T.Buffer((T.int64(1), T.int64(128), T.int64(14), T.int64(14)), "float32")):
        T.func_attr({"source_ops": "nn.conv2d, add, nn.relu, layout_transform", "tir.noalias": T.bool(True)})
        conv2d_NCHWc = T.alloc_buffer((T.int64(1), T.int64(8), T.int64(14), T.int64(14), T.int64(16)))
        T_add = T.alloc_buffer((T.int64(1), T.int64(8), T.int64(14), T.int64(14), T.int64(16)))
        compute = T.alloc_buffer((T.int64(1), T.int64(8), T.int64(14), T.int64(14), T.int64(16)))
        for n, oc_chunk, oh, ow, oc_block, ic_outer, kh, kw, ic_inner in T.grid(T.int64(1), T.int64(8), T.int64(14), T.int64(14), T.int64(16), T.int64(4), T.int64(1), T.int64(1), T.int64(16)):
            with T.block("conv2d_NCHWc"):
                v_n, v_oc_chunk, v_oh, v_ow, v_oc_block, v_ic_outer, v_kh, v_kw, v_ic_inner = T.axis.remap("SSSSSRRRR", [n, oc_chunk, oh, ow, oc_block, ic_outer, kh, kw, ic_inner])
                T.reads(x[v_n, v_ic_outer, v_oh * T.int64(1) + v_kh * T.int64(1), v_ow * T.int64(1) + v_kw * T.int64(1), v_ic_inner], w[v_oc_chunk, v_ic_outer, v_kh, v_kw, v_ic_inner, v_oc_block])
                T.writes(conv2d_NCHWc[v_n, v_oc_chunk, v_oh, v_ow, v_oc_block])
                with T.init():
                    conv2d_NCHWc[v_n, v_oc_chunk, v_oh, v_ow, v_oc_block] = T.float32(0.0)
                conv2d_NCHWc[v_n, v_oc_chunk, v_oh, v_ow, v_oc_block] = conv2d_NCHWc[v_n, v_oc_chunk, v_oh, v_ow, v_oc_block] + x[v_n, v_ic_outer, v_oh * T.int64(1) + v_kh * T.int64(1), v_ow * T.int64(1) + v_kw * T.int64(1), v_ic_inner] * w[v_oc_chunk, v_ic_outer, v_kh, v_kw, v_ic_inner, v_oc_block]
        for ax0, ax1, ax2, ax3, ax4 in T.grid(T.int64(1), T.int64(8), T.int64(14), T.int64(14), T.int64(16)):
            with T.block("T_add"):
                v_ax0, v_ax1, v_ax2, v_ax3, v_ax4 = T.axis.remap("SSSSS", [ax0, ax1, ax2, ax3, ax4])
                T.reads(conv2d_NCHWc[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4], b[v_ax0, v_ax1, T.int64(0), T.int64(0), v_ax4])
                T.writes(T_add[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4])
                T_add[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4] = conv2d_NCHWc[v_ax0, v_ax1, v_ax2, v_ax3, v_ax4] + b[v_ax0, v_ax1, T.int64(0), T.int64(0), v_ax4]
        for i0, i1, i2, i3, i4 in T.grid(T.int64(1), T.int64(8), T.int64(14), T.int64(14), T.int64(16)):
            with T.block("compute"):
                v_i0, v_i1, v_i2, v_i3, v_i4 = T.axis.remap("SSSSS", [i0, i1, i2, i3, i4])
                T.reads(T_add[v_i0, v_i1, v_i2, v_i3, v_i4])
                T.writes(compute[v_i0, v_i1, v_i2, v_i3, v_i4])
                compute[v_i0, v_i1, v_i2, v_i3, v_i4] = T.max(T_add[v_i0, v_i1, v_i2, v_i3, v_i4], T.float32(0.0))
        for ax0, ax1, ax2, ax3 in T.grid(T.int64(1), T.int64(128), T.int64(14), T.int64(14)):
            with T.block("T_layout_trans"):
                v_ax0, v_ax1, v_ax2, v_ax3 = T.axis.remap("SSSS", [ax0, ax1, ax2, ax3])
                T.reads(compute[v_ax0, v_ax1 // T.int64(16), v_ax2, v_ax3, v_ax1 % T.int64(16)])
                T.writes(T_layout_trans[v_ax0, v_ax1, v_ax2, v_ax3])
                T_layout_trans[v_ax0, v_ax1, v_ax2, v_ax3] = compute[v_ax0, v_ax1 // T.int64(16), v_ax2, v_ax3, v_ax1 % T.int64(16)]

