# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def folded(A: T.Buffer((4, 64), "float32"), C: T.Buffer((4, 64), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        B = T.alloc_buffer((4, 64))
        for b in range(4):
            for i in range(64):
                with T.block("B"):
                    vb, vi = T.axis.remap("SS", [b, i])
                    T.reads(A[vb, vi])
                    T.writes(B[vb, vi])
                    B[vb, vi] = A[vb, vi] * T.float32(2.0)
            for ax0 in range(64):
                with T.block("C"):
                    vb, vi = T.axis.remap("SS", [b, ax0])
                    T.reads(B[T.int64(0) * T.int64(4) + T.Cast("int64", vb), vi])
                    T.writes(C[vb, vi])
                    C[vb, vi] = B[T.int64(0) * T.int64(4) + T.Cast("int64", vb), vi] + T.float32(1.0)
