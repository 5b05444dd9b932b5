# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A 3x3 max pool with padding over channel-blocked data that no convolution epilogue pads
# (GoogLeNet's pool branch reads the concatenated branches): the padding is made per plane (a
# channel block, 16 x 16 x 16 floats, 16 KB, within half of L2) under the parallel loop over the
# planes, its border and interior just before the window reads them; no whole padded copy goes
# to memory in five parallel loops of its own. Lowering then allocates the plane per iteration.
# The -inf a tile starts from is stored as the tile is updated, whole vectors (left to LLVM,
# AVX-512 stored it as scatters).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((1, 32, 14, 14, 16), dtype="float32")):
        with R.dataflow():
            gv = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[1, 1], padding=[1, 1, 1, 1], layout="NCHW16c")
            R.output(gv)
        return gv
# CHECK: for ax0_ax1_fused in T.parallel(T.int64(32)):
# CHECK-NEXT: for ax0, ax1 in T.grid(T.int64(14), T.int64(14)):
# CHECK-NEXT: for ax2 in T.vectorized(T.int64(16)):
# CHECK-NEXT: with T.block("pad_temp"):
# CHECK: with T.block("pad_temp_border0"):
# CHECK: for ax2, ax3_0 in T.grid(T.int64(14), T.int64(2)):
# CHECK-NEXT: for ax3_1_init in T.unroll(T.int64(7)):
# CHECK-NEXT: for ax4_init in T.vectorized(T.int64(16)):
# CHECK-NEXT: with T.block("pool_max_init"):
# CHECK: for ax3_1 in T.unroll(T.int64(7)):
# CHECK-NEXT: for ax4 in T.vectorized(T.int64(16)):
# CHECK-NEXT: with T.block("pool_max_update"):
