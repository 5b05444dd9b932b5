# RUN: --passes=alter-op-layout,remove-unused,split-padding
# MobileNet's inverted residual: the depthwise convolution's padding moves into an nn.pad of the
# expansion's ReLU (which fuse-ops fuses into the expansion's kernel); the convolution itself
# has no padding left and reads the padded blocks in place.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=haswell"})

    @R.function
    def main(x: R.Tensor((1, 8, 10, 10), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0])
            lv1 = R.nn.relu(lv)
            lv2 = R.nn.conv2d(lv1, metadata["relax.expr.Constant"][1], strides=[2, 2], padding=[1, 1, 1, 1], groups=24)
            lv3 = R.nn.relu(lv2)
            gv = R.nn.conv2d(lv3, metadata["relax.expr.Constant"][2])
            R.output(gv)
        return gv
# CHECK: R.nn.relu(lv_blocked)
# CHECK-NEXT: R.nn.pad(lv1_blocked, pad_width=[0, 0, 0, 0, 1, 1, 1, 1, 0, 0], pad_value=0.0, pad_mode="constant")
# CHECK-NEXT: strides=[2, 2], padding=[0, 0, 0, 0], dilation=[1, 1], groups=24, data_layout="NCHW8c"
