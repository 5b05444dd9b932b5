# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# conv_pointwise_chunks.py with a bias and a ReLU: the epilogue needs the whole reduction, so it
# cannot run per pixel tile as an unchunked one does; it runs per parallel iteration, after the
# chunks, over the span's output (16 channel blocks x 14 x 14 pixels, 100 KB, still in L2), not as a
# pass of its own over the whole output read back from memory (FCN-ResNet50's chunked 1x1 layers
# 2-5% faster on two threads, Zen 5).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((1, 128, 14, 14, 8), dtype="float32"), w: R.Tensor((32, 128, 1, 1, 8, 8), dtype="float32"), b: R.Tensor((1, 32, 1, 1, 8), dtype="float32")):
        with R.dataflow():
            lv = R.nn.conv2d(x, w, data_layout="NCHW8c", kernel_layout="OIHW8i8o", out_layout="NCHW8c")
            lv1 = R.add(lv, b)
            gv = R.nn.relu(lv1)
            R.output(gv)
        return gv
# CHECK: for n_oc_chunk_0_0_fused in T.parallel(T.int64(2)):
# CHECK: for ic_outer_0, oh, ow_0, oc_chunk_0_1 in T.grid(T.int64(8), T.int64(14), T.int64(5), T.int64(4)):
# CHECK: T.gemm_tile_nd(
# CHECK-NEXT: for ax0, ax1, ax2 in T.grid(T.int64(16), T.int64(14), T.int64(14)):
# CHECK-NEXT: for ax3 in T.vectorized(T.int64(8)):
# CHECK-NEXT: with T.block("compute"):
