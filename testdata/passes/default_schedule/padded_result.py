# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A convolution whose result is zero-padded for the next (depthwise) layer (split-padding):
# decompose_padding splits the pad into its border, four thin loops of zeros, and its interior;
# the interior is the convolution's epilogue (ReLU) under its tiles, and in_place_epilogue makes
# the register tile write the interior of the padded result directly: no intermediate buffer.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((1, 1, 8, 8, 16), dtype="float32"), w: R.Tensor((2, 1, 1, 1, 16, 16), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, w, data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
            lv1 = R.nn.relu(lv)
            gv = R.nn.pad(lv1, pad_width=[0, 0, 0, 0, 1, 1, 1, 1, 0, 0])
            R.output(gv)
        return gv
# CHECK-NOT: T.alloc_buffer
# CHECK: T.gemm_tile_nd(T.address_of(pad_temp[
# CHECK: pad_temp[v_i0, v_i1, v_i2 + T.int64(1), v_i3 + T.int64(1), v_i4] = T.max(pad_temp[v_i0, v_i1, v_i2 + T.int64(1), v_i3 + T.int64(1), v_i4], T.float32(0.0))
# The border is 160 iterations per slab: serial loops (no parallel launch for so little).
# CHECK-NOT: T.parallel
# CHECK: with T.block("pad_temp_border0"):
# CHECK: pad_temp[v_i0, v_i1, v_i2, v_i3, v_i4] = T.float32(0.0)
# CHECK: with T.block("pad_temp_border1"):
# CHECK: pad_temp[v_i0, v_i1, v_i2 + T.int64(9), v_i3, v_i4] = T.float32(0.0)
# CHECK: with T.block("pad_temp_border2"):
# CHECK: with T.block("pad_temp_border3"):
# CHECK: pad_temp[v_i0, v_i1, v_i2, v_i3 + T.int64(9), v_i4] = T.float32(0.0)
