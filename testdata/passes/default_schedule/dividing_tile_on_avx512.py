# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# The same 128 rows on AVX-512 (32 registers): 8 rows x 2 vectors divide them and hold 16
# accumulators, as many as a guarded tile could, so the tile divides and no tail is guarded.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v4"})

    @R.function
    def main(x: R.Tensor((128, 256), dtype="float32"), w: R.Tensor((256, 2048), dtype="float32")):
        with R.dataflow():
            gv = R.matmul(x, w)
            R.output(gv)
        return gv
# (The 2 MB of weights, more than L2, have each row tile prefetch a slice of the next chunk:
# gemm_tile_nd with flags 32 and no 4, no guarded tile.)
# CHECK-NOT: T.gemm_tile_partial(
# CHECK: T.gemm_tile_nd(
# CHECK-SAME: T.int64(8), T.int64(1), T.int64(32), T.int64(256), T.int64(2048), T.int64(0), T.int64(0), T.int64(32),
