# RUN: --passes=alter-op-layout
# A grouped convolution (ResNeXt's 3x3, RegNet's): 2 groups of 8 channels on an AVX-512 target.
# A block of 16 lanes would straddle the groups, so data, weight and result are blocked by 8,
# which divides each group's input and output channels: a tile of output blocks then reads
# only its own group's data blocks (the data is converted from the 16-blocked layout the first
# convolution gave it).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((1, 16, 8, 8), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], padding=[1, 1, 1, 1])
            lv1 = R.nn.conv2d(lv, metadata["relax.expr.Constant"][1], padding=[1, 1, 1, 1], groups=2)
            R.output(lv1)
        return lv1
# CHECK: data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c"
# CHECK: R.layout_transform(lv_blocked, src_layout="NCHW16c", dst_layout="NCHW8c")
# CHECK: groups=2, data_layout="NCHW8c", kernel_layout="OIHW8i8o", out_layout="NCHW8c"
