# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def gemm(A: T.Buffer((48, 40), "float32"), B: T.Buffer((40, 64), "float32"), C: T.Buffer((48, 64), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i_0, i_1, i_2, j, k in T.grid(2, 3, 8, 64, 40):
            with T.block("C"):
                vi = T.axis.spatial(48, i_0 * 24 + i_1 * 8 + i_2)
                vj = T.axis.spatial(64, j)
                vk = T.axis.reduce(40, k)
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
