# RUN: --passes=alter-op-layout
# EXPECT: no change
# What stays in NCHW: output channels in no block (7), a grouped convolution whose groups
# hold fewer than 4 channels (no block divides them), and weights known only at run time.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((1, 16, 8, 8), dtype="float32"), w: R.Tensor((16, 16, 1, 1), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0])
            lv1 = R.nn.conv2d(x, metadata["relax.expr.Constant"][1], groups=8)
            lv2 = R.nn.conv2d(x, w)
            R.output(lv, lv1, lv2)
        return (lv, lv1, lv2)
# CHECK-NOT: layout_transform
# CHECK-NOT: NCHW16c
# CHECK: return (lv, lv1, lv2)
