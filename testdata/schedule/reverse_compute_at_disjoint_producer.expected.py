# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def border(A: T.Buffer((8,), "float32"), C: T.Buffer((8,), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        P = T.alloc_buffer((10,))
        for i in range(8):
            with T.block("B"):
                vi = T.axis.spatial(8, i)
                T.reads(A[vi])
                T.writes(P[vi + 1])
                P[vi + 1] = A[vi] + T.float32(1.0)
            with T.block("C"):
                vi = T.axis.spatial(8, i)
                T.reads(P[vi + 1])
                T.writes(C[vi])
                C[vi] = P[vi + 1] * T.float32(2.0)
        with T.block("P_left"):
            T.reads()
            T.writes(P[0])
            P[0] = T.float32(0.0)
        with T.block("P_right"):
            T.reads()
            T.writes(P[9])
            P[9] = T.float32(0.0)
