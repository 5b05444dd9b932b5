# A consumer with a second producer of the same buffer after the loop, writing only where the
# consumer does not read (a padded result's border, as decompose_padding leaves it): C reads
# P[1:9], which B writes under loop i; the border blocks write P[0] and P[9] after it. Moving C
# under i is safe.
@I.ir_module
class Module:
    @T.prim_func
    def border(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        P = T.alloc_buffer((10,))
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                P[vi + 1] = A[vi] + T.float32(1.0)
        with T.block("P_left"):
            P[0] = T.float32(0.0)
        with T.block("P_right"):
            P[9] = T.float32(0.0)
        for i in range(8):
            with T.block("C"):
                vi = T.axis.spatial(8, i)
                C[vi] = P[vi + 1] * T.float32(2.0)
