# RUN: --passes=split-padding
# Where the pad would be a kernel of its own, the padding stays in the convolution: the
# depthwise convolution of the function's input (no producer to fuse into; once alter-op-layout
# blocks it, the input's layout_transform is one: layout_transform_producer.py), and the one
# whose data the residual add reads too (the producer's result must stay unpadded).
# EXPECT: no change
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=haswell"})

    @R.function
    def main(x: R.Tensor((1, 24, 10, 10), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][1], padding=[1, 1, 1, 1], groups=24)
            lv1 = R.nn.relu(lv)
            lv2 = R.nn.conv2d(lv1, metadata["relax.expr.Constant"][1], padding=[1, 1, 1, 1], groups=24)
            gv = R.add(lv2, lv1)
            R.output(gv)
        return gv
# CHECK-NOT: R.nn.pad
# CHECK: padding=[1, 1, 1, 1], dilation=[1, 1], groups=24
# CHECK: padding=[1, 1, 1, 1], dilation=[1, 1], groups=24
# CHECK-NOT: R.nn.pad
