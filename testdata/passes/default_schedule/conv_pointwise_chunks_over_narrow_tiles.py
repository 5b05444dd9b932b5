# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# ResNet-50's 512 -> 128 1x1 convolution at 28 x 28 (NCHW16c, Zen 5: 48 KB L1). Over the whole
# reduction of 512 channels only one-block-wide tiles fit L1 (7 x 1: 7 accumulators, a weight
# vector per 7 multiply-adds); a wider tile spills it. The tiles that spill are offered in
# reduction chunks that fit L1 too, and one of them wins: 2 pixels x 8 blocks in 8 chunks of 4
# input-channel blocks (32 KB of weights), the rows in 2 parts (ChunkedRowParts). On Zen 5, one
# thread: 620 -> 509 us per call (72% -> 85-89% of the peak).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver5"})

    @R.function
    def main(x: R.Tensor((1, 32, 28, 28, 16), dtype="float32"), w: R.Tensor((8, 32, 1, 1, 16, 16), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
            R.output(gv)
        return gv
# CHECK: T.parallel(T.int64(2))
# CHECK: for ic_outer_0, oh_1, ow_0 in T.grid(T.int64(8), T.int64(14), T.int64(14)):
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(2), T.int64(8), T.int64(16), T.int64(16), T.int64(16),
