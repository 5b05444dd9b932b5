# RUN: --passes=alter-op-layout,remove-unused
# 3-D windows on an AVX2 target (8 lanes): the volume is converted to 8-channel blocks once
# (NCDHW8c), the convolution's weight packed to OIDHW8i8o, its bias (C, 1, 1, 1) blocked,
# the ReLU, the depthwise convolution (OIDHW8o) and the max pool run on the blocks, and only
# the function's result goes back to NCDHW.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=haswell"})

    @R.function
    def main(x: R.Tensor((1, 8, 4, 6, 6), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv3d(x, metadata["relax.expr.Constant"][0], padding=[1, 1, 1, 1, 1, 1])
            lv1 = R.add(lv, metadata["relax.expr.Constant"][1])
            lv2 = R.nn.relu(lv1)
            lv3 = R.nn.conv3d(lv2, metadata["relax.expr.Constant"][2], padding=[1, 1, 1, 1, 1, 1], groups=16)
            gv = R.nn.max_pool3d(lv3, pool_size=[2, 2, 2], strides=[2, 2, 2])
            R.output(gv)
        return gv
# CHECK: R.layout_transform(x, src_layout="NCDHW", dst_layout="NCDHW8c")
# CHECK-NEXT: data_layout="NCDHW8c", kernel_layout="OIDHW8i8o", out_layout="NCDHW8c")
# CHECK-NEXT: R.add(lv_blocked,
# CHECK-NEXT: R.nn.relu(lv1_blocked)
# CHECK-NEXT: groups=16, data_layout="NCDHW8c", kernel_layout="OIDHW8o", out_layout="NCDHW8c")
# CHECK-NEXT: R.nn.max_pool3d(lv3_blocked,
# CHECK-SAME: layout="NCDHW8c")
# CHECK-NEXT: R.layout_transform(gv_blocked, src_layout="NCDHW8c", dst_layout="NCDHW")
