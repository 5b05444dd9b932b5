# RUN: --passes=alter-op-layout,remove-unused,split-padding
# A regular 3x3 convolution (one group) of another's ReLU: its padding moves into an nn.pad of
# that ReLU, which fuse-ops fuses into the first convolution's kernel, so the second no longer
# copies its whole input into a padded buffer first. The first convolution's padding joins
# the layout_transform that blocks the function's input, a kernel of its own.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=haswell"})

    @R.function
    def main(x: R.Tensor((1, 16, 10, 10), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], padding=[1, 1, 1, 1])
            lv1 = R.nn.relu(lv)
            gv = R.nn.conv2d(lv1, metadata["relax.expr.Constant"][0], padding=[1, 1, 1, 1])
            R.output(gv)
        return gv
# CHECK: R.layout_transform(x,
# CHECK-NEXT: R.nn.pad(blocked, pad_width=[0, 0, 0, 0, 1, 1, 1, 1, 0, 0]
# CHECK-NEXT: padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW8c"
# CHECK: R.nn.relu(lv_blocked)
# CHECK-NEXT: R.nn.pad(lv1_blocked, pad_width=[0, 0, 0, 0, 1, 1, 1, 1, 0, 0], pad_value=0.0, pad_mode="constant")
# CHECK-NEXT: padding=[0, 0, 0, 0], dilation=[1, 1], groups=1, data_layout="NCHW8c"
