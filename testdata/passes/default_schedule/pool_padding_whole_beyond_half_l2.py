# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# The pool of pool_padding_per_plane.py at 112 x 112: a padded plane (114 x 114 x 16 floats,
# 832 KB) is more than half of Zen 4's L2 (1 MB), so the copy would not stay in L2 for the
# window; the padding stays whole at the root, as border fills and an interior copy.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((1, 32, 112, 112, 16), dtype="float32")):
        with R.dataflow():
            gv = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[1, 1], padding=[1, 1, 1, 1], layout="NCHW16c")
            R.output(gv)
        return gv
# CHECK: for ax0_ax1_ax2_ax3_fused in T.parallel(T.int64(3648)):
# CHECK: with T.block("pad_temp_border0"):
# CHECK: for ax0_ax1_ax2_fused in T.parallel(T.int64(3584)):
# CHECK-NEXT: for ax3 in range(T.int64(112)):
# CHECK-NEXT: for ax4 in T.vectorized(T.int64(16)):
# CHECK-NEXT: with T.block("pad_temp"):
# CHECK: for ax0_ax1_ax2_fused in T.parallel(T.int64(3584)):
# CHECK: with T.block("pool_max_update"):
