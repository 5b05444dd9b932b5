# RUN: --passes=alter-op-layout,remove-unused
# A 3-D convolution has no GEMM route for channel counts the blocks do not divide, so any count
# is padded up to whole vectors when that adds at most a quarter: R(2+1)D's factored (1, 3, 3)
# convolution to 60 channels (AVX-512: 64, 4 blocks of 16) and the (3, 1, 1) one reading them
# with zero taps for the 4 extra channels. (Left in NCDHW, R(2+1)D-18's 230-, 460- and 921-channel
# convolutions ran as plain loop nests: 2.8 s against 0.38 s padded.) A 2-D convolution to 60
# channels keeps its route through conv2d-to-gemm: not blocked.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v4"})

    @R.function
    def main(x: R.Tensor((1, 16, 4, 6, 6), dtype="float32"), y: R.Tensor((1, 16, 6, 6), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv3d(x, metadata["relax.expr.Constant"][0], padding=[0, 1, 1, 0, 1, 1])
            lv1 = R.nn.relu(lv)
            lv2 = R.nn.conv3d(lv1, metadata["relax.expr.Constant"][1], padding=[1, 0, 0, 1, 0, 0])
            lv3 = R.nn.conv2d(y, metadata["relax.expr.Constant"][2], padding=[1, 1, 1, 1])
            gv = (lv2, lv3)
            R.output(gv)
        return gv
# CHECK: lv_blocked: R.Tensor((1, 4, 4, 6, 6, 16), dtype="float32") = R.nn.conv3d(
# CHECK-SAME: out_layout="NCDHW16c"
# CHECK: R.nn.relu(lv_blocked)
# CHECK: lv2_blocked: R.Tensor((1, 1, 4, 6, 6, 16), dtype="float32") = R.nn.conv3d(lv1_blocked,
# CHECK-SAME: kernel_layout="OIDHW16i16o"
# CHECK: lv3: R.Tensor((1, 60, 6, 6), dtype="float32") = R.nn.conv2d(y,
