# A row sum on an odd shape: B[i] = sum_k A[i, k] over (13, 132).
@I.ir_module
class Module:
    @T.prim_func
    def row_sum(A: T.Buffer((13, 132), "float32"), B: T.Buffer((13,), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, k in T.grid(13, 132):
            with T.block("B"):
                vi, vk = T.axis.remap("SR", [i, k])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + A[vi, vk]
