# RUN: --passes=conv2d-to-gemm
# A strided convolution whose weight is a parameter: the weight is reshaped at run time, and
# the GEMM's columns are the 5 x 5 output pixels (gathered: strides other than 1), rounded up
# to a multiple of x86-64-v3's 8 lanes.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((1, 3, 9, 9), dtype="float32"), w: R.Tensor((8, 3, 3, 3), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1])
            R.output(gv)
        return gv
# CHECK: R.reshape(w, shape=[8, 27])
# CHECK: R.nn.conv2d_gemm(x, lv, kernel_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], dilation=[1, 1], column_tile=8)
