# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def mm(A: T.Buffer((37, 33), "float32"), B: T.Buffer((33, 129), "float32"), C: T.Buffer((37, 129), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        Y = T.alloc_buffer((37, 129))
        for i_0, j_0 in T.grid(10, 3):
            for i_1_init, j_1_init in T.grid(4, 43):
                with T.block("Y_init"):
                    vi = T.axis.spatial(37, i_0 * 4 + i_1_init)
                    vj = T.axis.spatial(129, j_0 * 43 + j_1_init)
                    T.where(i_0 * 4 + i_1_init < 37)
                    T.reads()
                    T.writes(Y[vi, vj])
                    Y[vi, vj] = T.float32(0.0)
            with T.block("Y_update_o"):
                vi_o, vj_o = T.axis.remap("SS", [i_0, j_0])
                T.reads(Y[vi_o * 4:vi_o * 4 + 4, vj_o * 43:vj_o * 43 + 43], A[vi_o * 4:vi_o * 4 + 4, 0:33], B[0:33, vj_o * 43:vj_o * 43 + 43])
                T.writes(Y[vi_o * 4:vi_o * 4 + 4, vj_o * 43:vj_o * 43 + 43])
                T.evaluate(T.gemm_tile_partial(T.address_of(Y[vi_o * 4, vj_o * 43]), T.address_of(A[vi_o * 4, 0]), T.address_of(B[0, vj_o * 43]), T.int64(33), T.int64(4), T.int64(43), T.int64(33), T.int64(1), T.int64(129), T.int64(1), T.int64(129), T.int64(1), T.min(T.int64(4), T.max(T.int64(0), T.Cast("int64", i_0) * T.int64(-4) + T.int64(37)))))
        for i, j in T.grid(37, 129):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(Y[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0.0))
