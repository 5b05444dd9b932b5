# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def gemm(A: T.Buffer((48, 40), "float32"), B: T.Buffer((40, 64), "float32"), C: T.Buffer((48, 64), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        B_global = T.alloc_buffer((4, 40, 16))
        for ax0, ax1 in T.grid(40, 64):
            with T.block("B_global"):
                v0, v1 = T.axis.remap("SS", [ax0, ax1])
                T.reads(B[v0, v1])
                T.writes(B_global[v1 // 16, v0, v1 % 16])
                B_global[v1 // 16, v0, v1 % 16] = B[v0, v1]
        for i, j, k in T.grid(48, 64, 40):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B_global[vj // 16, vk, vj % 16])
                T.writes(C[vi, vj])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B_global[vj // 16, vk, vj % 16]
