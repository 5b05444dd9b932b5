# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A 1x1 convolution of 1024 -> 256 channels over 14 x 14 pixels in NCHW8c on AVX2 (ResNet-50's
# layer3): no tile's working set fits L1 over the 1024-long reduction (a group's weights alone
# are 32 KB or more), so the reduction runs in chunks of input-channel blocks whose working set
# does: the chunk loop outside the pixel tiles, the sums zeroed first (an init block) and added
# to chunk by chunk (2.3 -> 1.3 ms alone on a Zen 3).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((1, 128, 14, 14, 8), dtype="float32"), w: R.Tensor((32, 128, 1, 1, 8, 8), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, data_layout="NCHW8c", kernel_layout="OIHW8i8o", out_layout="NCHW8c")
            R.output(gv)
        return gv
# CHECK: _init")
# CHECK: for ic_outer_0,
# CHECK: T.gemm_tile_nd(
