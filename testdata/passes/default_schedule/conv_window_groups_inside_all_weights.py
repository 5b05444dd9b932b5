# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# EfficientNet-V2-S's 48 -> 192 3 x 3 convolution at 56 x 56 on a Zen 5 (48 KB L1), its input
# padded already: 1.7 MB of data, beyond half of L2, against 331 KB of weights, within it, so
# the groups of channel blocks run inside each pixel tile. Every pixel tile then reads all 12
# blocks' weights, from L2, whatever its width: a tile one block wide, whose own block's
# weights (27 KB) and data would fit in L1, has no weights to keep there, and pays a broadcast
# per multiply-add. The tile is 8 pixels x 3 blocks (alone: 3.01 ms, 14 x 2 3.00, against 3.56
# for the 12 x 1 it took when its own block's weights counted as its working set).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver5"})

    @R.function
    def main(x: R.Tensor((1, 3, 58, 58, 16), dtype="float32"), w: R.Tensor((12, 3, 3, 3, 16, 16), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
            R.output(gv)
        return gv
# CHECK: for n_oh_ow_0_oc_chunk_0_fused in T.parallel(T.int64(1568)):
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(8), T.int64(3), T.int64(16)
