# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A 3x3 convolution of 16 -> 64 channels over a 7-wide NCHW8c row on AVX2 (16 registers; few
# input channels, so every tile's weights fit L1 whole and none goes in chunks, as a 64 -> 64
# convolution's 7 x 1 tile does in chunks of four input blocks): no tile that divides 7 has
# enough accumulators (7 x 1: seven, one short of the eight chains two FMA pipes of latency 4
# need), so the rule takes 3 pixels x 4 channel blocks (12 accumulators, the three broadcasts
# live and one weight vector at a time) and a guarded last tile of one pixel: flags 2 (C = the
# sums) | 4 (a last argument gives the rows computed) | 16 (the next tile's data prefetched).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((1, 2, 9, 9, 8), dtype="float32"), w: R.Tensor((8, 2, 3, 3, 8, 8), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, data_layout="NCHW8c", kernel_layout="OIHW8i8o", out_layout="NCHW8c")
            R.output(gv)
        return gv
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(3), T.int64(4), T.int64(8)
# CHECK-SAME: T.int64(22),
# CHECK-SAME: T.min(T.int64(3)
