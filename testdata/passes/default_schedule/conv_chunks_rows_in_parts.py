# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# Inception-v3's 768 -> 128 1x1 convolution over 17 x 17 pixels in NCHW16c on AVX-512: the
# reduction runs in chunks (no tile's working set fits L1 over 768 channels), and the 8 output
# blocks are one group of 8, so the loops outside the chunks (image x groups) have one
# iteration and the convolution ran on one thread of two. The image rows go in parts outside
# the chunks, each part a parallel iteration: 17 rows (a prime) in 17 parts, each rereading the
# chunks' weights from L2 (ChunkedRowParts; 0.54-0.65x the time on two threads, 0-13% more on
# one).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v4"})

    @R.function
    def main(x: R.Tensor((1, 48, 17, 17, 16), dtype="float32"), w: R.Tensor((8, 48, 1, 1, 16, 16), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
            R.output(gv)
        return gv
# CHECK: for n_oc_chunk_0_oh_0_fused in T.parallel(T.int64(17)):
# CHECK: _init")
# CHECK: v_oh = T.axis.spatial(T.int64(17), n_oc_chunk_0_oh_0_fused + oh_1_init)
# CHECK: for ic_outer_0, oh_1, ow_0 in T.grid(T.int64(16), T.int64(1), T.int64(6)):
# CHECK: T.gemm_tile_nd(
