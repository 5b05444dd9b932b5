# RUN: --passes=alter-op-layout,remove-unused,split-padding
# ResNet's stem: the max pool's padding becomes an nn.pad with -inf (the value that leaves a
# max unchanged) of the convolution's ReLU, which fuse-ops fuses into the stem's kernel. The
# second pool rounds its output size up (ceil_mode, as GoogLeNet's do): 8 rows padded by 1 give
# 5 windows of 3 every 2, whose last reaches one row past the padding, so the split pad adds
# that row at the end (1 before, 2 after) and the pool runs in floor mode with the same 5 x 5.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=haswell"})

    @R.function
    def main(x: R.Tensor((1, 3, 32, 32), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], strides=[2, 2], padding=[3, 3, 3, 3])
            lv1 = R.nn.relu(lv)
            lv2 = R.nn.max_pool2d(lv1, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])
            lv3 = R.nn.conv2d(lv2, metadata["relax.expr.Constant"][1], padding=[1, 1, 1, 1])
            lv4 = R.nn.relu(lv3)
            gv = R.nn.max_pool2d(lv4, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1], ceil_mode=True)
            R.output(gv)
        return gv
# CHECK: R.nn.relu(lv_blocked)
# CHECK-NEXT: R.nn.pad(lv1_blocked, pad_width=[0, 0, 0, 0, 1, 1, 1, 1, 0, 0], pad_value=float("-inf"), pad_mode="constant")
# CHECK-NEXT: R.nn.max_pool2d(
# CHECK-SAME: padding=[0, 0, 0, 0]
# CHECK: R.nn.pad(lv4_blocked, pad_width=[0, 0, 0, 0, 1, 2, 1, 2, 0, 0], pad_value=float("-inf"), pad_mode="constant")
# CHECK-NEXT: R.nn.max_pool2d(
# CHECK-SAME: padding=[0, 0, 0, 0], dilation=[1, 1], ceil_mode=False
# CHECK-SAME: R.Tensor((1, 2, 5, 5, 8), dtype="float32")
