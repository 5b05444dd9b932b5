# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# ResNet-50's expansion: a 1x1 convolution of 64 -> 256 channels over 56 x 56 pixels in NCHW8c on
# AVX2, with the residual added and relu. The data (800 KB) is beyond half of L2, the weights
# (64 KB) within it, so the groups of channel blocks share each read of the data. Inside each
# 3-pixel tile, a tile wrote into all 32 output planes (and read the residual's), 100 KB apart,
# a multiple of 2 KB: the streams crowded a few of L1's sets (36% of a Zen 3's peak). Here the
# image rows go in blocks of 2 whose packed data (28 KB) fits in L1, 28 blocks for the threads;
# inside a block each group writes its planes along their rows (10.1 -> 4.4 ms in the model).
# Its epilogue stays a loop: 64 multiply-adds per output vector dwarf the epilogue's reload.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((1, 8, 56, 56, 8), dtype="float32"), w: R.Tensor((32, 8, 1, 1, 8, 8), dtype="float32"), r: R.Tensor((1, 32, 56, 56, 8), dtype="float32")):
        with R.dataflow():
            y = R.nn.conv2d(x, w, data_layout="NCHW8c", kernel_layout="OIHW8i8o", out_layout="NCHW8c")
            z = R.add(y, r)
            gv = R.nn.relu(z)
            R.output(gv)
        return gv
# The block's data packed under the parallel loop over blocks of 2 image rows; then the groups,
# the block's rows and its 3-pixel tiles, the epilogue per tile.
# CHECK: x_global = T.alloc_buffer((T.int64(1), T.int64(56), T.int64(19), T.int64(8), T.int64(3), T.int64(8)))
# CHECK: for n_oh_0_fused in T.parallel(T.int64(28)):
# CHECK: for ax0, ax1, ax2 in T.grid(T.int64(8), T.int64(2), T.int64(56)):
# CHECK: T.block("x_global")
# CHECK: for oc_chunk_0, oh_1, ow_0 in T.grid(T.int64(8), T.int64(2), T.int64(19)):
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.address_of(x_global[v_n_o, v_oh_o, v_ow_o, T.int64(0), T.int64(0), T.int64(0)])
# CHECK-NEXT: for ax0, ax1 in T.grid(T.int64(4), T.int64(3)):
# CHECK: T.block("compute")
# CHECK: v_i2 = T.axis.spatial(T.int64(56), n_oh_0_fused * T.int64(2) + oh_1)
