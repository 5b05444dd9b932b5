# RUN: --passes=conv2d-to-gemm
# An odd number of output channels (a segmentation head's 21 classes; 7 here) is a GEMM too: no
# register tile divides its 7 rows, and the GEMM rule runs the last tile of rows guarded.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 6, 7, 7), dtype="float32"), v: R.Tensor((7, 6, 1, 1), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, v)
            R.output(gv)
        return gv
# CHECK: R.reshape(v, shape=[7, 6])
# CHECK: R.nn.conv2d_gemm(x, lv, kernel_size=[1, 1]
