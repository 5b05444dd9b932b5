# RUN: --passes=conv2d-to-gemm,fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A 1-D convolution of 250 -> 250 channels over 7 taps (a speech model's layer: x 1 x 250 x 1 x
# 201) is a GEMM over its windows: m 250 output channels, k 250 x 7 = 1750, n 201 pixels padded
# to 224. One block of columns holds all of n, so the row tiles (50 of 5 rows) are the parallel
# loop, inside the k blocks (10 of 175) whose windows are packed block by block. The packing of
# each k block is parallel too (its 7 panels x 175 k): on one thread, with the other waiting
# at every block, it took a quarter of the kernel on two threads.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver5"})

    @R.function
    def main(x: R.Tensor((1, 250, 1, 201), dtype="float32"), w: R.Tensor((250, 250, 1, 7), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, padding=[0, 3, 0, 3])
            R.output(gv)
        return gv
# CHECK: for k_0 in range(T.int64(10)):
# CHECK-NEXT: for ax1_0_ax0_fused in T.parallel(T.int64(1225)):
# CHECK: with T.block("im2col_global"):
# CHECK: for o_0 in T.parallel(T.int64(50)):
# CHECK: T.gemm_tile(
