# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A 1x1 convolution of 512 -> 256 channels over 28 x 28 pixels in NCHW8c on AVX2 (ResNeXt-50's
# layer2): neither the data (1.6 MB) nor all the weights (512 KB) fit in half of L2, so with the
# groups of blocks outside the pixel tiles the data streamed from beyond L2 once per group, 32
# times (a 7 x 1 tile whose working set fits L1: 31% of a Zen 3's peak). The cost of that stream
# (Target::stream_bytes_per_cycle) now makes the reduction run in 2 chunks of 32 input-channel
# blocks, the 16 groups of 2 blocks (6 x 2 tiles) in 2 spans of 8 (parallel), a span's groups
# inside the pixel tiles, so the data streams twice (on the Zen 3: 31% -> 69% of the peak). Each
# tile's chunk of data is packed into a panel [channel blocks, pixels, lanes] before the span's
# groups read it (the copy under ow_0, vectorized): in place, its 32 rows of 3 lines, a channel
# block's 25 KB apart, would start in only 8 of L1's 64 sets and need half of those sets' lines
# (DataRowsCrowdL1Sets; conv_pointwise_chunks' rows do not). A span's sums (401 KB) exceed this generic
# target's 256 KB L2, so every chunk would read and write them from memory: the image rows go in
# 4 parts outside the chunks, each part's sums within half of L2 (ChunkedRowParts).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((1, 64, 28, 28, 8), dtype="float32"), w: R.Tensor((32, 64, 1, 1, 8, 8), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, data_layout="NCHW8c", kernel_layout="OIHW8i8o", out_layout="NCHW8c")
            R.output(gv)
        return gv
# CHECK: x_global = T.alloc_buffer((T.int64(1), T.int64(28), T.int64(5), T.int64(64), T.int64(6), T.int64(8)))
# CHECK: for n_oc_chunk_0_0_oh_0_fused in T.parallel(T.int64(8)):
# CHECK: T.block("conv2d_NCHWc_init")
# CHECK: for ic_outer_0, oh_1, ow_0 in T.grid(T.int64(2), T.int64(7), T.int64(5)):
# CHECK: for ax2 in T.vectorized(T.int64(8)):
# CHECK: T.block("x_global")
# CHECK: for oc_chunk_0_1 in range(T.int64(8)):
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(6), T.int64(2), T.int64(8)
