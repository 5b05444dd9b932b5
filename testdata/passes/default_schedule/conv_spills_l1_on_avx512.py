# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# ResNet-18's 28 x 28 layer (128 -> 128 channels, 3x3, the input padded already) on AVX-512: no
# tile's working set stays in L1 (a group of 2 blocks reads 147 KB of weights), so each pixel
# tile reads its weight vectors back from L2, one 64-byte vector per MR multiply-adds. A 4 x 4
# tile (the fewest loads per multiply-add) would read 16 bytes from L2 per multiply-add, as many
# cycles as the multiply-add itself; 14 pixels x 2 blocks reads 4.6 (on a Cascade Lake
# 0.79-0.85x the time of 4 x 4).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v4"})

    @R.function
    def main(x: R.Tensor((1, 8, 30, 30, 16), dtype="float32"), w: R.Tensor((8, 8, 3, 3, 16, 16), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
            R.output(gv)
        return gv
# CHECK: T.parallel(T.int64(224))
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(14), T.int64(2), T.int64(16), T.int64(16), T.int64(16),
