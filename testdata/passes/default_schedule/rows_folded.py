# RUN: --passes=fuse-ops,legalize,fuse-tir,default-schedule,remove-unused
# x[8, 1, 32] @ w[32, 16]: one row per batch entry, but the weight has no batch dimension, so
# the batch folds into the rows of one 8 x 16 x 32 GEMM: 6 x 16 tiles, the last 2 rows guarded
# (their tile keeps copies of its accumulators, so it costs about what 4 x 16 tiles would).
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=x86-64-v3"})

    @R.function
    def main(x: R.Tensor((8, 1, 32), dtype="float32"), w: R.Tensor((32, 16), dtype="float32")):
        with R.dataflow():
            gv = R.matmul(x, w)
            R.output(gv)
        return gv
# CHECK: T.gemm_tile_partial(T.address_of(T_matmul[v_i0_o * T.int64(6), v_i1_o,
# CHECK-SAME: T.int64(32), T.int64(6), T.int64(16)
