# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def ewise(A: T.Buffer((7, 129), "float32"), C: T.Buffer((7, 129), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        B = T.alloc_buffer((7, 129))
        for i, j_0 in T.grid(7, 5):
            for j_1 in range(32):
                with T.block("B"):
                    vi = T.axis.spatial(7, i)
                    vj = T.axis.spatial(129, j_0 * 32 + j_1)
                    T.where(j_0 * 32 + j_1 < 129)
                    T.reads(A[vi, vj])
                    T.writes(B[vi, vj])
                    B[vi, vj] = A[vi, vj] * T.float32(2.0)
            for ax0 in range(32):
                with T.block("C"):
                    vi = T.axis.spatial(7, i)
                    vj = T.axis.spatial(129, j_0 * 32 + ax0)
                    T.where(j_0 * 32 + ax0 < 129)
                    T.reads(B[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = B[vi, vj] + T.float32(1.0)
