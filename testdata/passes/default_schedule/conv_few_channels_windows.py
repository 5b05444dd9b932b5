# RUN: --passes=conv2d-to-gemm,fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A convolution to 3 channels over 9 x 9 windows (a style-transfer net's last layer) is a GEMM
# over its windows with 3 rows (m 3, k 32 x 81 = 2592, n one per output pixel). A row of its
# result is larger than L1, so it takes the few-row register tile (all 3 rows x 4 vectors)
# rather than loops that would stream the result through L2 at every k; the windows are made
# block by block of k inside the packing (54 k at a time: a panel of 54 x 64 floats fits half
# of L1), never stored whole. Before, the windows took 2592 x 67584 floats (700 MB at 256 x 256)
# and the product ran at 4% of the peak.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((1, 32, 48, 48), dtype="float32"), w: R.Tensor((3, 32, 9, 9), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, padding=[4, 4, 4, 4])
            R.output(gv)
        return gv
# CHECK-NOT: T.alloc_buffer((T.int64(1), T.int64(2592), T.int64(
# CHECK: for k_0 in range(T.int64(48)):
# CHECK-NEXT: for ax0 in range(T.int64(54)):
# CHECK-NEXT: for ax1 in T.vectorized(T.int64(64)):
# CHECK-NEXT: with T.block("im2col_global"):
# CHECK: T.gemm_tile(
