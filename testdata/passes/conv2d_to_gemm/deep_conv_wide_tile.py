# RUN: --passes=conv2d-to-gemm
# A deep 3x3 convolution (K = 32 * 9 = 288 >= 64) at 12 x 12: its columns (12 rows of the padded
# width 14 = 168) round up to two vectors of x86-64-v3 (16: 176 columns, 5% junk), which gives
# the GEMM rule its MR x 2-vector register tile. The shallow one (K = 27) keeps one vector.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((1, 32, 12, 12), dtype="float32"), w: R.Tensor((8, 32, 3, 3), dtype="float32"), y: R.Tensor((1, 3, 12, 12), dtype="float32"), v: R.Tensor((8, 3, 3, 3), dtype="float32")):
        with R.dataflow():
            a = R.nn.conv2d(x, w, padding=[1, 1, 1, 1])
            b = R.nn.conv2d(y, v, padding=[1, 1, 1, 1])
            gv = R.add(a, b)
            R.output(gv)
        return gv
# CHECK: R.nn.conv2d_gemm(x, lv, kernel_size=[3, 3], strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], column_tile=16)
# CHECK: R.nn.conv2d_gemm(y, lv1, kernel_size=[3, 3], strides=[1, 1], padding=[1, 1, 1, 1], dilation=[1, 1], column_tile=8)
