# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A 1x1 convolution of 256 -> 128 channels over 56 x 56 pixels in NCHW8c on AVX2 (ResNet-50's
# layer2 entry): 3.2 MB of data, beyond half of L2, against 128 KB of weights, within it. The
# loop over groups of channel blocks then runs inside the pixel tiles (the fused parallel loop
# ends with oc_chunk), so each tile's data is read once for every group; with the groups outside,
# every group re-read all of the data along 32 strided streams (26 -> 9 ms on a Zen 3). The tile
# is 6 pixels x 2 blocks, whose group's weights and data (22 KB) fit in L1, not the 3 x 4 the
# load count alone prefers (36 KB: its weights came from L2 at every tile, 2.2x slower).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((1, 32, 56, 56, 8), dtype="float32"), w: R.Tensor((16, 32, 1, 1, 8, 8), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, data_layout="NCHW8c", kernel_layout="OIHW8i8o", out_layout="NCHW8c")
            R.output(gv)
        return gv
# Each pixel tile's data (32 channel blocks x 6 pixels x 8 lanes) is packed into a panel before
# the 8 groups read it: in place its rows lie 100 KB apart (56 x 56 x 8 floats), a multiple of
# 2 KB, so they crowd a few of L1's sets (47% -> 61% of a Zen 3's peak). The copy runs under the
# parallel pixel tiles (a guarded copy for the last, 2-pixel tile), the groups after it, serially.
# CHECK: x_global = T.alloc_buffer((T.int64(1), T.int64(56), T.int64(10), T.int64(32), T.int64(6), T.int64(8)))
# CHECK: for n_oh_ow_0_fused in T.parallel(T.int64(560)):
# CHECK: for ax2 in T.vectorized(T.int64(8)):
# CHECK: T.block("x_global")
# CHECK: for oc_chunk_0 in range(T.int64(8)):
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.address_of(x_global[v_n_o, v_oh_o, v_ow_o, T.int64(0), T.int64(0), T.int64(0)])
# CHECK-SAME: T.int64(6), T.int64(2), T.int64(8)
