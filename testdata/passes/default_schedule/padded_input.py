# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A stem convolution pads the function's input (3 channels, NCHW) before its tiles read it. The
# padding stays a loop nest of its own; decompose_padding splits it into a vectorized copy of
# the input into the interior, with no bounds check or clamped load per element, and four
# border fills (serial at this size: 3 x 64 x 64 iterations are not worth a parallel launch).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((1, 3, 64, 64), dtype="float32"), w: R.Tensor((2, 3, 3, 3, 16), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1], data_layout="NCHW", kernel_layout="OIHW16o", out_layout="NCHW16c")
            gv = R.nn.relu(lv)
            R.output(gv)
        return gv
# CHECK-NOT: T.Select
# CHECK: with T.block("pad_temp_border0"):
# CHECK: with T.block("pad_temp_border1"):
# CHECK: with T.block("pad_temp_border2"):
# CHECK: with T.block("pad_temp_border3"):
# CHECK: for ax3 in T.vectorized(T.int64(64)):
# CHECK-NEXT: with T.block("pad_temp"):
# CHECK: pad_temp[v_i0, v_i1, v_i2 + T.int64(1), v_i3 + T.int64(1)] = x[v_i0, v_i1, v_i2, v_i3]
# CHECK: T.gemm_tile_nd(
