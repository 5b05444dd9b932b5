# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def mm(A: T.Buffer((37, 33), "float32"), B: T.Buffer((33, 129), "float32"), C: T.Buffer((37, 129), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        Y = T.alloc_buffer((37, 129))
        for i, j_0 in T.grid(37, 17):
            for ax0, ax1 in T.grid(8, 33):
                with T.block("Y"):
                    vi = T.axis.spatial(37, i)
                    vj = T.axis.spatial(129, j_0 * 8 + ax0)
                    vk = T.axis.reduce(33, ax1)
                    T.where(j_0 * 8 + ax0 < 129)
                    T.reads(A[vi, vk], B[vk, vj])
                    T.writes(Y[vi, vj])
                    with T.init():
                        Y[vi, vj] = T.float32(0.0)
                    Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
            for j_1 in range(8):
                with T.block("C"):
                    vi = T.axis.spatial(37, i)
                    vj = T.axis.spatial(129, j_0 * 8 + j_1)
                    T.where(j_0 * 8 + j_1 < 129)
                    T.reads(Y[vi, vj])
                    T.writes(C[vi, vj])
                    C[vi, vj] = T.max(Y[vi, vj], T.float32(0.0))
