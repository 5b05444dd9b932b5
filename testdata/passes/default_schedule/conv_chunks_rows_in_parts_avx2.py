# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# conv_chunks_rows_in_parts.py on AVX2: 768 -> 32 channels over 17 x 17 pixels in NCHW8c, the
# reduction in 4 chunks of 24 input blocks, the 4 output blocks one group of 4: the 17 image
# rows in 17 parts outside the chunks, the parallel loop's iterations.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((1, 96, 17, 17, 8), dtype="float32"), w: R.Tensor((4, 96, 1, 1, 8, 8), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, data_layout="NCHW8c", kernel_layout="OIHW8i8o", out_layout="NCHW8c")
            R.output(gv)
        return gv
# CHECK: for n_oc_chunk_0_oh_0_fused in T.parallel(T.int64(17)):
# CHECK: _init")
# CHECK: v_oh = T.axis.spatial(T.int64(17), n_oc_chunk_0_oh_0_fused + oh_1_init)
# CHECK: for ic_outer_0, oh_1, ow_0 in T.grid(T.int64(4), T.int64(1), T.int64(6)):
# CHECK: T.gemm_tile_nd(
