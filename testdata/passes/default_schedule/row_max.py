# RUN: --passes=legalize,fuse-tir,default-schedule,remove-unused
# Softmax's row maximum: LLVM does not vectorize a max reduction (each step waits on the one
# before for its NaN rule), so the row reduction rule rfactors it over a vector of 16 lanes,
# vectorized, and reduces the 16 partial results in the same parallel iteration. The row sum
# stays a loop: LLVM vectorizes sums itself.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver4"})

    @R.function
    def main(x: R.Tensor((256, 128), dtype="float32")):
        with R.dataflow():
            gv = R.nn.softmax(x, axis=-1)
            R.output(gv)
        return gv
# CHECK: T_softmax_maxelem_rf = T.alloc_buffer((T.int64(256), T.int64(16)))
# CHECK: for i0 in T.parallel(T.int64(256)):
# CHECK: for k_0 in range(T.int64(8)):
# CHECK-NEXT: for k_1 in T.vectorized(T.int64(16)):
# CHECK-NEXT: with T.block("T_softmax_maxelem_rf_update"):
# CHECK: T_softmax_maxelem_rf[v_i0, vk_1] = T.max(T_softmax_maxelem_rf[v_i0, vk_1], x[v_i0, vk_0 * T.int64(16) + vk_1])
# CHECK-NEXT: for ax0 in range(T.int64(16)):
# CHECK-NEXT: with T.block("T_softmax_maxelem"):
# CHECK: for k in range(T.int64(128)):
# CHECK-NEXT: with T.block("T_softmax_expsum_update"):
