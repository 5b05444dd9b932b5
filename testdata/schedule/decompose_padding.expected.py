# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def mm_relu_pad(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32"), P: T.Buffer((17, 18), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i, j, k in T.grid(16, 16, 16):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                T.reads(A[vi, vk], B[vk, vj])
                T.writes(P[vi + 1, vj])
                with T.init():
                    P[vi + 1, vj] = T.float32(0.0)
                P[vi + 1, vj] = P[vi + 1, vj] + A[vi, vk] * B[vk, vj]
        for ax0, ax1 in T.grid(1, 18):
            with T.block("P_border0"):
                vi, vj = T.axis.remap("SS", [ax0, ax1])
                T.reads()
                T.writes(P[vi, vj])
                P[vi, vj] = T.float32(0.0)
        for ax0, ax1 in T.grid(17, 2):
            with T.block("P_border1"):
                vi, vj = T.axis.remap("SS", [ax0, ax1])
                T.reads()
                T.writes(P[vi, vj + 16])
                P[vi, vj + 16] = T.float32(0.0)
        for ax0, ax1 in T.grid(16, 16):
            with T.block("P"):
                vi, vj = T.axis.remap("SS", [ax0, ax1])
                T.reads(P[vi + 1, vj])
                T.writes(P[vi + 1, vj])
                P[vi + 1, vj] = T.max(P[vi + 1, vj], T.float32(0.0))
