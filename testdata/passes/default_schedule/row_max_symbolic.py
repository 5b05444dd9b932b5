# RUN: --passes=legalize,fuse-tir,default-schedule,remove-unused
# row_max.py over a row of symbolic length (attention's scores over past + seq): the row is split
# into vectors of 8 lanes (an AVX2 target) with the last one guarded, rfactored and vectorized the
# same way.
@I.ir_module
class Module:
    I.module_attrs({"target": "llvm -mcpu=znver3"})

    @R.function
    def main(x: R.Tensor((4, "n"), dtype="float32")):
        n = T.int64()
        with R.dataflow():
            gv = R.nn.softmax(x, axis=-1)
            R.output(gv)
        return gv
# CHECK: T_softmax_maxelem_rf = T.alloc_buffer((T.int64(4), T.int64(8)))
# CHECK: for k_0 in range((n + T.int64(7)) // T.int64(8)):
# CHECK-NEXT: for k_1 in T.vectorized(T.int64(8)):
# CHECK-NEXT: with T.block("T_softmax_maxelem_rf_update"):
# CHECK: T.where(k_0 * T.int64(8) + k_1 < n)
# CHECK: T_softmax_maxelem_rf[v_i0, vk_1] = T.max(T_softmax_maxelem_rf[v_i0, vk_1], x[v_i0, vk_0 * T.int64(8) + vk_1])
# CHECK: with T.block("T_softmax_maxelem"):
