# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def slice_to_scalar(A: T.Buffer((4,), "float32"), C: T.Buffer((), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        with T.block("C"):
            T.reads(A[0 + 1])
            T.writes(C[()])
            C[()] = A[0 + 1] * T.float32(2.0)
