# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A 1x1 convolution of 1024 -> 256 channels over 14 x 14 pixels in NCHW8c on AVX2 (ResNet-50's
# layer3): no tile's working set fits L1 over the 1024-long reduction (a group's weights alone
# are 32 KB or more), so the reduction runs in chunks of input-channel blocks whose working set
# does: the chunk loop outside the pixel tiles, the sums zeroed first (an init block) and added
# to chunk by chunk (2.3 -> 1.3 ms alone on a Zen 3). The data (800 KB) is more than half of L2
# too, so the 8 groups of 4 blocks go in 2 spans of 4 (parallel), a span's groups inside the
# pixel tiles: each tile's data is read from L1 by 4 groups, not streamed once per group
# (ResNet-50's 1x1 convolutions on the Zen 3: 50-67% -> 74-78% of the peak). A tile's chunk of
# data (16 channel blocks x 3 pixels) is read where it lies: its rows, 2 lines each and a channel
# block's 6 KB apart, start in 32 of L1's 64 sets and do not crowd them (DataRowsCrowdL1Sets),
# while a copy per tile cost each thread every row of its chunk; the tile prefetches the next
# tile's rows instead (flag 16 of T.gemm_tile_nd).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((1, 128, 14, 14, 8), dtype="float32"), w: R.Tensor((32, 128, 1, 1, 8, 8), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, data_layout="NCHW8c", kernel_layout="OIHW8i8o", out_layout="NCHW8c")
            R.output(gv)
        return gv
# CHECK: for n_oc_chunk_0_0_fused in T.parallel(T.int64(2)):
# CHECK: _init")
# CHECK: for ic_outer_0, oh, ow_0, oc_chunk_0_1 in T.grid(T.int64(8), T.int64(14), T.int64(5), T.int64(4)):
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.address_of(x[v_n_o, v_ic_outer_o * T.int64(16), v_oh_o, v_ow_o * T.int64(3), T.int64(0)])
