# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# Three 3x3 convolutions on AVX-512 (x86-64-v4: 32 KB of L1).
# - small: 512 -> 512 channels at 7 x 7 (9.4 MB of weights). Seven 7-pixel tiles share each
#   weight, so reading it from beyond L2 the first time is a seventh of the tile's weight loads,
#   and the 7 x 2 tile's weights over the whole reduction spill L1. The reduction goes in chunks
#   of one input-channel block (22 KB of working set, within three quarters of L1) outside the
#   pixel tiles, and each tile of a chunk prefetches a slice of the next chunk (block annotation
#   prefetch_next_weights; flags 48 of T.gemm_tile_nd: 32, the next chunk, | 16, the next
#   tile's data; no 2: chunks add to C).
# - few: 16 -> 32 at 7 x 7. Seven tiles share each weight too, but the tile's working set fits
#   L1 whole: it prefetches its weights a memory latency ahead (prefetch_weights; flags 26: 16 |
#   8 | 2, the tile writes whole sums).
# - large: 64 -> 64 at 28 x 28. 56 tiles share each weight, which then comes from L1 or L2: no
#   prefetch of weights (flags 18).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v4"})

    @R.function
    def main(x: R.Tensor((1, 32, 9, 9, 16), dtype="float32"), w: R.Tensor((32, 32, 3, 3, 16, 16), dtype="float32"), u: R.Tensor((1, 1, 9, 9, 16), dtype="float32"), k: R.Tensor((2, 1, 3, 3, 16, 16), dtype="float32"), y: R.Tensor((1, 4, 30, 30, 16), dtype="float32"), v: R.Tensor((4, 4, 3, 3, 16, 16), dtype="float32")):
        with R.dataflow():
            small = R.nn.conv2d(x, w, data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
            few = R.nn.conv2d(u, k, data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
            large = R.nn.conv2d(y, v, data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
            R.output(small, few, large)
        return (small, few, large)
# CHECK: def conv2d(
# CHECK: T.block_attr({"prefetch_next_weights": T.bool(True)})
# CHECK: for ic_outer_0, oh, ow_0 in T.grid(T.int64(32), T.int64(7), T.int64(1)):
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(73728), T.int64(784), T.int64(48), T.int64(3)
# CHECK: def conv2d1(
# CHECK-NOT: prefetch_next_weights
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(2304), T.int64(784), T.int64(26), T.int64(3)
# CHECK: def conv2d2(
# CHECK-NOT: prefetch
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(9216), T.int64(12544), T.int64(18), T.int64(4)
# CHECK: def main(
