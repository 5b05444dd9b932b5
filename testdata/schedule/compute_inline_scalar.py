# A slice of one element read by a scalar (0-d) block, as a fused slice + reshape to a scalar is:
# the consumer has no iteration variables, and inlining must still rewrite it.
@I.ir_module
class Module:
    @T.prim_func
    def slice_to_scalar(A: T.Buffer((4,), "float32"), C: T.Buffer((), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        B = T.alloc_buffer((1,))
        for i in range(1):
            with T.block("B"):
                vi = T.axis.spatial(1, i)
                B[vi] = A[vi + 1]
        with T.block("C"):
            C[()] = B[0] * T.float32(2.0)
