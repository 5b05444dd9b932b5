# A copy done twice: the outer loop t binds no iteration variable, so its iterations all
# write the same elements.
@I.ir_module
class Module:
    @T.prim_func
    def repeat(A: T.Buffer((7,), "float32"), B: T.Buffer((7,), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for t, i in T.grid(2, 7):
            with T.block("B"):
                vi = T.axis.spatial(7, i)
                B[vi] = A[vi]
