# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def mm(A: T.Buffer((37, 33), "float32"), B: T.Buffer((33, 129), "float32"), C: T.Buffer((37, 129), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        Y = T.alloc_buffer((37, 129))
        A_local = T.alloc_buffer((37, 33))
        for i in range(37):
            for ax0 in range(33):
                with T.block("A_local"):
                    v0, v1 = T.axis.remap("SS", [i, ax0])
                    T.reads(A[v0, v1])
                    T.writes(A_local[v0, v1])
                    A_local[v0, v1] = A[v0, v1]
            for j, k in T.grid(129, 33):
                with T.block("Y"):
                    vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                    T.reads(A_local[vi, vk], B[vk, vj])
                    T.writes(Y[vi, vj])
                    with T.init():
                        Y[vi, vj] = T.float32(0.0)
                    Y[vi, vj] = Y[vi, vj] + A_local[vi, vk] * B[vk, vj]
        for i, j in T.grid(37, 129):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(Y[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0.0))
