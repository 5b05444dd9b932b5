# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# 256 -> 64 channels, 3x3, on AVX2 (x86-64-v3: L2 taken as 256 KiB): a group of 4 output blocks
# reads 295 KB of weights, more than half of L2, so every pixel tile would fetch them again from
# memory. The rule splits the input-channel blocks (32) into chunks whose weights stay in half of
# L1 (one block: 9 KB) while every pixel tile reads them, runs the chunks outside the pixel
# tiles, and the tiles add their chunk's sums to C (zeroed by an init block first; flags 4 | 16:
# not 2, C is read; the next tile's data prefetched); a chunk of one block leaves the tile its
# window's loops (3 x 3 x 8 steps).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((1, 32, 9, 9, 8), dtype="float32"), w: R.Tensor((8, 32, 3, 3, 8, 8), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, data_layout="NCHW8c", kernel_layout="OIHW8i8o", out_layout="NCHW8c")
            R.output(gv)
        return gv
# CHECK: T.block("conv2d_NCHWc_init")
# CHECK: for ic_outer_0, oh, ow_0 in T.grid(T.int64(32), T.int64(7), T.int64(3)):
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(3), T.int64(4), T.int64(8)
# CHECK-SAME: T.int64(20), T.int64(3), T.int64(3), T.int64(72), T.int64(192),
