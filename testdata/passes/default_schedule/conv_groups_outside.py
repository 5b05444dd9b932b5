# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A 3x3 convolution of 64 -> 64 channels over 14 x 14 pixels in NCHW8c on AVX2: the data (64 KB)
# stays in L2 while its 147 KB of weights stream group by group, so the groups stay outside the
# pixel tiles (the fused parallel loop starts with oc_chunk after the batch). Its 14-pixel tiles
# are 14 to a weight, few enough that reading the weights from beyond L2 is a large share of
# their loads, and their working set spills L1: the reduction goes in chunks that fit it, between
# the groups and the pixel tiles, each tile prefetching a slice of the next chunk.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((1, 8, 16, 16, 8), dtype="float32"), w: R.Tensor((8, 8, 3, 3, 8, 8), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, data_layout="NCHW8c", kernel_layout="OIHW8i8o", out_layout="NCHW8c")
            R.output(gv)
        return gv
# CHECK: for n_oc_chunk_0_fused in T.parallel(T.int64(8)):
# CHECK: T.block_attr({"prefetch_next_weights": T.bool(True)})
# CHECK: for ic_outer_0, oh, ow_0 in T.grid(T.int64(4), T.int64(14), T.int64(1)):
# CHECK: T.gemm_tile_nd(
