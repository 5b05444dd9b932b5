# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# The pool of pool_padding_per_plane.py at 28 x 28: a padded plane (30 x 30 x 16 floats, 58 KB)
# is more than half of Zen 4's L1 (32 KB), so the copy would not stay in L1 for the window; the
# padding stays whole at the root, as border fills and an interior copy (per plane, such planes
# ran 1.5-2x slower than the whole copy on Zen 5, on one thread and two).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((1, 32, 28, 28, 16), dtype="float32")):
        with R.dataflow():
            gv = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[1, 1], padding=[1, 1, 1, 1], layout="NCHW16c")
            R.output(gv)
        return gv
# CHECK: for ax0_ax1_ax2_ax3_fused in T.parallel(T.int64(960)):
# CHECK: with T.block("pad_temp_border0"):
# CHECK: for ax0_ax1_ax2_fused in T.parallel(T.int64(896)):
# CHECK-NEXT: for ax3 in range(T.int64(28)):
# CHECK-NEXT: for ax4 in T.vectorized(T.int64(16)):
# CHECK-NEXT: with T.block("pad_temp"):
# CHECK: for ax0_ax1_ax2_fused in T.parallel(T.int64(896)):
# CHECK: with T.block("pool_max_update"):
