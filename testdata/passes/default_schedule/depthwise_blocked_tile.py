# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A depthwise convolution in a channel-blocked layout (what alter-op-layout makes of MobileNetV2's):
# the register tile is T.gemm_tile_nd with vector data, and the padding is computed per tile,
# just before the tile reads it (3 padded rows x the tile's 30 columns x 16 channels), under the
# same parallel loop, vectorized along the channels: no whole padded input goes to memory and
# back. Lowering then allocates that window per iteration (end_to_end_test checks it). The
# epilogue (relu) under the tile is unrolled: with 9 multiply-adds per output vector, storing
# each sum and loading it back was a large share of the tile's memory operations, and unrolled,
# LLVM keeps the sums in their registers through it.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((1, 2, 56, 56, 16), dtype="float32"), w: R.Tensor((2, 1, 3, 3, 1, 16), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, w, padding=[1, 1, 1, 1], groups=32, data_layout="NCHW16c", kernel_layout="OIHW1i16o", out_layout="NCHW16c")
            gv = R.nn.relu(lv)
            R.output(gv)
        return gv
# CHECK: for n_oc_chunk_oh_ow_0_fused in T.parallel(T.int64(224)):
# CHECK-NEXT: for ax0, ax1 in T.grid(T.int64(3), T.int64(30)):
# CHECK-NEXT: for ax2 in T.vectorized(T.int64(16)):
# CHECK-NEXT: with T.block("pad_temp"):
# CHECK: with T.block("conv2d_NCHWc_o"):
# CHECK: T.gemm_tile_nd(
# CHECK-NEXT: for ax0 in T.unroll(T.int64(28)):
# CHECK-NEXT: for ax1 in T.vectorized(T.int64(16)):
# CHECK-NEXT: with T.block("compute"):
