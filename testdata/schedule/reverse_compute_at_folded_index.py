# A consumer that reads its producer at a reshape's leftover index (0 * 4 + vb, as fusion
# composes a reshape of a leading unit axis): B[b, i] = A[b, i] * 2, C[b, i] = B[0 * 4 + b, i] + 1.
@I.ir_module
class Module:
    @T.prim_func
    def folded(A: T.Buffer((4, 64), "float32"), C: T.Buffer((4, 64), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        B = T.alloc_buffer((4, 64))
        for b, i in T.grid(4, 64):
            with T.block("B"):
                vb, vi = T.axis.remap("SS", [b, i])
                B[vb, vi] = A[vb, vi] * T.float32(2.0)
        for b, i in T.grid(4, 64):
            with T.block("C"):
                vb, vi = T.axis.remap("SS", [b, i])
                C[vb, vi] = B[T.int64(0) * T.int64(4) + vb, vi] + T.float32(1.0)
