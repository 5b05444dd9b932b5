# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def gemm(A: T.Buffer((48, 40), "float32"), B: T.Buffer((40, 64), "float32"), C: T.Buffer((48, 64), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i_0, j_0 in T.grid(12, 4):
            with T.block("C_o"):
                vi_o, vj_o = T.axis.remap("SS", [i_0, j_0])
                T.reads(A[vi_o * 4:vi_o * 4 + 4, 0:40], B[0:40, vj_o * 16:vj_o * 16 + 16])
                T.writes(C[vi_o * 4:vi_o * 4 + 4, vj_o * 16:vj_o * 16 + 16])
                for i_1, j_1, k in T.grid(4, 16, 40):
                    with T.block("C"):
                        vi = T.axis.spatial(48, vi_o * 4 + i_1)
                        vj = T.axis.spatial(64, vj_o * 16 + j_1)
                        vk = T.axis.reduce(40, k)
                        T.reads(A[vi, vk], B[vk, vj])
                        T.writes(C[vi, vj])
                        with T.init():
                            C[vi, vj] = T.float32(0.0)
                        C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
