# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# SqueezeNet 1.1's classifier (512 -> 1000 channels, 1 x 1, at 13 x 13) on AVX-512: 1000 output
# channels block by 8, so each weight vector is 32 bytes in a 64-byte register. No tile's
# working set stays in L1, and the L2 reads a tile pays for are a block's 32 bytes per MR
# multiply-adds, not a whole register's 64: 5 pixels x 5 blocks (the tuner's best of 15 as well;
# on a Cascade Lake 0.93x the time of the 13 x 1 tile charged for 64-byte reads). The tile runs
# the reduction in chunks whose weights stay in L1, the 25 groups of 5 blocks in parallel (on
# Zen 5 0.92x the time of the same tile over the whole reduction, which spilled L1).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v4"})

    @R.function
    def main(x: R.Tensor((1, 32, 13, 13, 16), dtype="float32"), w: R.Tensor((125, 32, 1, 1, 16, 8), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, data_layout="NCHW16c", kernel_layout="OIHW16i8o", out_layout="NCHW8c")
            R.output(gv)
        return gv
# CHECK: T.parallel(T.int64(25))
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(5), T.int64(5), T.int64(8), T.int64(16), T.int64(8),
