# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# x[1, 7, 7, 256] @ w[256, 64] on AVX2 (ConvNeXt's last stage, channels last): 7 rows per entry
# of the batch. 7 x 8 tiles divide them but hold 7 accumulators (fewer chains than the FMA
# latency needs, a broadcast per FMA: 56-59% of the peak); 6 x 16 tiles with a guarded last row
# are chosen, that row's tile keeping copies of its accumulators (0.80-0.89x the time).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((1, 7, 7, 256), dtype="float32"), w: R.Tensor((256, 64), dtype="float32")):
        with R.dataflow():
            gv = R.matmul(x, w)
            R.output(gv)
        return gv
# CHECK: T.gemm_tile_partial(
# CHECK-SAME: T.int64(6), T.int64(16)
