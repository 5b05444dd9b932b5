# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A larger padded result (4 x 58 x 58 x 16): its border fills are parallel loops too. They run
# right after the convolution's parallel loop and each vector of a column lies a row apart;
# serial, they left the other threads waiting (MobileNetV2 on 2 threads). The small result of
# padded_result.py keeps them serial, where a parallel launch would cost more than the fill.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((1, 1, 56, 56, 16), dtype="float32"), w: R.Tensor((4, 1, 1, 1, 16, 16), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, w, data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
            lv1 = R.nn.relu(lv)
            gv = R.nn.pad(lv1, pad_width=[0, 0, 0, 0, 1, 1, 1, 1, 0, 0])
            R.output(gv)
        return gv
# CHECK: T.gemm_tile_nd(T.address_of(pad_temp[
# CHECK: for ax0_ax1_ax2_ax3_fused in T.parallel(T.int64(232)):
# CHECK-NEXT: for ax4 in T.vectorized(T.int64(16)):
# CHECK-NEXT: with T.block("pad_temp_border0"):
# CHECK: for ax0_ax1_ax2_ax3_fused in T.parallel(T.int64(232)):
# CHECK: with T.block("pad_temp_border1"):
# CHECK: for ax0_ax1_ax2_fused in T.parallel(T.int64(232)):
# CHECK: with T.block("pad_temp_border2"):
# CHECK: for ax0_ax1_ax2_fused in T.parallel(T.int64(232)):
# CHECK: with T.block("pad_temp_border3"):
