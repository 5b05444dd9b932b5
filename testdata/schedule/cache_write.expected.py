# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def gemm(A: T.Buffer((48, 40), "float32"), B: T.Buffer((40, 64), "float32"), C: T.Buffer((48, 64), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        C_local = T.alloc_buffer((48, 64))
        for i_0, j_0 in T.grid(6, 4):
            for k, i_1, j_1 in T.grid(40, 8, 16):
                with T.block("C"):
                    vi = T.axis.spatial(48, i_0 * 8 + i_1)
                    vj = T.axis.spatial(64, j_0 * 16 + j_1)
                    vk = T.axis.reduce(40, k)
                    T.reads(A[vi, vk], B[vk, vj])
                    T.writes(C_local[vi, vj])
                    with T.init():
                        C_local[vi, vj] = T.float32(0.0)
                    C_local[vi, vj] = C_local[vi, vj] + A[vi, vk] * B[vk, vj]
            for ax0, ax1 in T.grid(8, 16):
                with T.block("C_local"):
                    v0 = T.axis.spatial(48, i_0 * 8 + ax0)
                    v1 = T.axis.spatial(64, j_0 * 16 + ax1)
                    T.reads(C_local[v0, v1])
                    T.writes(C[v0, v1])
                    C[v0, v1] = C_local[v0, v1]
