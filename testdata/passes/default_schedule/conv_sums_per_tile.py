# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A 1x1 convolution of 128 -> 512 channels over 28 x 28 pixels in NCHW16c whose result goes back
# to NCHW: the epilogue (bias, relu, layout transform) cannot take the tile's sums in place, so
# they stay an intermediate, laid out (n, h, w / MR, c, w % MR, lanes) so that one tile's sums
# are one contiguous region: [2 blocks, 14 pixels, 16 lanes] here, which lowering allocates per
# tile (testdata/codegen/lowering/sums_per_tile.py), where in NCHW16c the tile's 2 blocks span
# 2 x 28 x 28 x 16 floats.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((1, 8, 28, 28, 16), dtype="float32"), w: R.Tensor((32, 8, 1, 1, 16, 16), dtype="float32"), b: R.Tensor((1, 32, 1, 1, 16), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, w, data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
            lv1 = R.add(lv, b)
            lv2 = R.nn.relu(lv1)
            gv = R.layout_transform(lv2, src_layout="NCHW16c", dst_layout="NCHW")
            R.output(gv)
        return gv
# CHECK: conv2d_NCHWc = T.alloc_buffer((T.int64(1), T.int64(28), T.int64(2), T.int64(32), T.int64(14), T.int64(16)))
# CHECK: for n_oc_chunk_0_oh_ow_0_fused in T.parallel(T.int64(896)):
# CHECK: T.writes(conv2d_NCHWc[v_n_o, v_oh_o, v_ow_o, v_oc_chunk_o * T.int64(2):v_oc_chunk_o * T.int64(2) + T.int64(2), T.int64(0):T.int64(14), T.int64(0):T.int64(16)])
# CHECK: T.reads(conv2d_NCHWc[v_ax0, v_ax2, v_ax3 // T.int64(14), v_ax1 // T.int64(16), v_ax3 % T.int64(14), v_ax1 % T.int64(16)]
