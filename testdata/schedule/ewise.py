# Two elementwise blocks on an odd shape: B = A * 2, C = B + 1.
@I.ir_module
class Module:
    @T.prim_func
    def ewise(A: T.Buffer((7, 129), "float32"), C: T.Buffer((7, 129), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        B = T.alloc_buffer((7, 129))
        for i, j in T.grid(7, 129):
            with T.block("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(7, 129):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vi, vj] + T.float32(1.0)
