# A float32 GEMM C = A @ B on 48 x 64 x 40 (for blockize and tensorize).
@I.ir_module
class Module:
    @T.prim_func
    def gemm(A: T.Buffer((48, 40), "float32"), B: T.Buffer((40, 64), "float32"), C: T.Buffer((48, 64), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j, k in T.grid(48, 64, 40):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
