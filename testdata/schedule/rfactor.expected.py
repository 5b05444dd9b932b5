# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def row_sum(A: T.Buffer((13, 132), "float32"), B: T.Buffer((13,), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        B_rf = T.alloc_buffer((13, 4))
        for i, k_0, k_1 in T.grid(13, 33, 4):
            with T.block("B_rf"):
                vi, vk_0, vk_1 = T.axis.remap("SRS", [i, k_0, k_1])
                T.reads(A[vi, vk_0 * 4 + vk_1])
                T.writes(B_rf[vi, vk_1])
                with T.init():
                    B_rf[vi, vk_1] = T.float32(0.0)
                B_rf[vi, vk_1] = B_rf[vi, vk_1] + A[vi, vk_0 * 4 + vk_1]
        for i, k_1 in T.grid(13, 4):
            with T.block("B"):
                vi, vk_1 = T.axis.remap("SR", [i, k_1])
                T.reads(B_rf[vi, vk_1])
                T.writes(B[vi])
                with T.init():
                    B[vi] = T.float32(0.0)
                B[vi] = B[vi] + B_rf[vi, vk_1]
