# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def ewise(A: T.Buffer((7, 129), "float32"), C: T.Buffer((7, 129), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        B = T.alloc_buffer((7, 129))
        for i, j in T.grid(7, 129):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(7, 129):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(B[vi, vj])
                T.writes(C[vi, vj])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
