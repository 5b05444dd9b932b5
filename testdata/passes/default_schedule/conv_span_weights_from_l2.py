# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# A 1x1 convolution of 512 -> 2048 channels over 28 x 28 pixels in NCHW16c on a Zen 5
# (DeepLabV3-ResNet50's dilated stage 4): the reduction runs in chunks and the groups of blocks
# in spans, a span's groups inside each pixel tile, so every pixel tile reads the whole span's
# weights for the chunk from L2. A 4-pixel tile needs a weight vector per 4 multiply-adds, the
# whole of L2's bandwidth (SpanWaitsOnL2): it is priced as spilling L1 and loses to 6 x 4, which
# needs two thirds of it (alone on one thread: 4 x 4 6.3 ms, 6 x 4 5.6-5.9 ms).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver5"})

    @R.function
    def main(x: R.Tensor((1, 32, 28, 28, 16), dtype="float32"), w: R.Tensor((128, 32, 1, 1, 16, 16), dtype="float32")):
        with R.dataflow():
            gv = R.nn.conv2d(x, w, data_layout="NCHW16c", kernel_layout="OIHW16i16o", out_layout="NCHW16c")
            R.output(gv)
        return gv
# CHECK: for n_oc_chunk_0_0_oh_0_fused in T.parallel(T.int64(14)):
# CHECK: for ic_outer_0, oh_1, ow_0, oc_chunk_0_1 in T.grid(T.int64(4), T.int64(4), T.int64(5), T.int64(16)):
# CHECK: T.gemm_tile_nd(T.address_of(conv2d_NCHWc[v_n_o, v_oc_chunk_o * T.int64(4), v_oh_o, v_ow_o * T.int64(6), T.int64(0)])
