# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def clip(x: T.Buffer((8,), "float32"), c: T.Buffer((), "float32"), y: T.Buffer((8,), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        # with T.block("root"):
        for i in range(8):
            with T.block("y"):
                vi = T.axis.spatial(8, i)
                T.reads(x[vi], c[()])
                T.writes(y[vi])
                y[vi] = T.min(x[vi], c[()])
