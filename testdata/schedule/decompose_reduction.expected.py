# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def row_sum(A: T.Buffer((13, 132), "float32"), B: T.Buffer((13,), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i in range(13):
            with T.block("B_init"):
                vi = T.axis.spatial(13, i)
                T.reads()
                T.writes(B[vi])
                B[vi] = T.float32(0.0)
            for k in range(132):
                with T.block("B_update"):
                    vi, vk = T.axis.remap("SR", [i, k])
                    T.reads(B[vi], A[vi, vk])
                    T.writes(B[vi])
                    B[vi] = B[vi] + A[vi, vk]
