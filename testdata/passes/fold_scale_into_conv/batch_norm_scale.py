# RUN: --passes=fold-scale-into-conv,remove-unused
# What an eval-mode batch norm leaves after a convolution: a per-channel scale and shift. The
# scale goes into the convolution's weights; the shift stays.
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 3, 8, 8), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0])
            lv1 = R.multiply(lv, metadata["relax.expr.Constant"][1])
            lv2 = R.add(lv1, metadata["relax.expr.Constant"][2])
            R.output(lv2)
        return lv2
# CHECK: R.nn.conv2d(x, metadata["relax.expr.Constant"][0]
# CHECK-NOT: R.multiply
# CHECK: R.add(
