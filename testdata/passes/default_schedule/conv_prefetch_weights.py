# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# Two 3x3 convolutions on AVX-512. At 7 x 7 (512 -> 512 channels, 9.4 MB of weights) seven
# 7-pixel tiles share each weight, so reading it from beyond L2 the first time is a seventh of
# the tile's weight loads: the rule asks for prefetches (block annotation prefetch_weights, flag
# 8 of T.gemm_tile_nd). At 28 x 28 (64 -> 64) 56 tiles share each weight, which then comes
# from L1 or L2: no prefetch (flags 2: the tile writes whole sums). Both read their data in place
# and prefetch the next tile's (flag 16).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v4"})

    @R.function
    def main(x: R.Tensor((1, 32, 9, 9, 16), dtype="float32"), w: R.Tensor((32, 32, 3, 3, 16, 16), dtype="float32"), y: R.Tensor((1, 4, 30, 30, 16), dtype="float32"), v: R.Tensor((4, 4, 3, 3, 16, 16), dtype="float32")):
        with R.dataflow():
            small = R.nn.conv2d(x, w, data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
            large = R.nn.conv2d(y, v, data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
            R.output(small, large)
        return (small, large)
# CHECK: def conv2d(
# CHECK: T.block_attr({"prefetch_weights": T.bool(True)})
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(73728), T.int64(784), T.int64(24), T.int64(4)
# CHECK: def conv2d1(
# CHECK-NOT: prefetch_weights
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(9216), T.int64(12544), T.int64(18), T.int64(4)
# CHECK: def main(
