# An epilogue with a second producer: C = B * S, where S is computed after B's loop nest (as a
# fused kernel's side computation can be). Moving C under B's loop would read S before it is
# written.
@I.ir_module
class Module:
    @T.prim_func
    def side(A: T.Buffer((8,), "float32"), X: T.Buffer((1,), "float32"), C: T.Buffer((8,), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        B = T.alloc_buffer((8,))
        S = T.alloc_buffer((1,))
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                B[vi] = A[vi] + T.float32(1.0)
        for j in range(1):
            with T.block("S"):
                vj = T.axis.spatial(1, j)
                S[vj] = X[vj] * T.float32(2.0)
        for i in range(8):
            with T.block("C"):
                vi = T.axis.spatial(8, i)
                C[vi] = B[vi] * S[0]
