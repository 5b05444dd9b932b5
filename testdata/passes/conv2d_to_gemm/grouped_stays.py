# RUN: --passes=conv2d-to-gemm
# A depthwise (grouped) convolution is no single GEMM and stays.
# EXPECT: no change
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 6, 7, 7), dtype="float32"), w: R.Tensor((6, 1, 3, 3), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, padding=[1, 1, 1, 1], groups=6)
            R.output(gv)
        return gv
# CHECK: R.nn.conv2d(x, w
