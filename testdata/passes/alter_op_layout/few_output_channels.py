# RUN: --passes=alter-op-layout,remove-unused
# 9 output channels on an AVX-512 target (16 lanes), more than half a vector: padded to one
# block of 16 (zero filters) and computed as a blocked convolution, rather than left to
# conv2d-to-gemm. The bias add keeps the block; the result leaves it for NCHW and the real 9
# channels.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v4"})

    @R.function
    def main(x: R.Tensor((1, 32, 8, 8), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, metadata["relax.expr.Constant"][0], padding=[1, 1, 1, 1])
            gv = R.add(lv, metadata["relax.expr.Constant"][1])
            R.output(gv)
        return gv
# CHECK: lv_blocked: R.Tensor((1, 1, 8, 8, 16), dtype="float32") = R.nn.conv2d(blocked,
# CHECK-SAME: kernel_layout="OIHW16i16o", out_layout="NCHW16c")
# CHECK: R.add(lv_blocked,
# CHECK: R.layout_transform(
# CHECK-SAME: src_layout="NCHW16c", dst_layout="NCHW")
# CHECK: R.strided_slice(
# CHECK-SAME: end=[9]
