# A 0-d buffer (a scalar the block reads, as an imported ReLU6's bound): its region in T.reads
# prints as `c[()]`, as its loads do, and parses back.
@I.ir_module
class Module:
    @T.prim_func
    def clip(x: T.Buffer((8,), "float32"), c: T.Buffer((), "float32"), y: T.Buffer((8,), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in range(8):
            with T.block("y"):
                vi = T.axis.spatial(8, i)
                T.reads(x[vi], c[()])
                T.writes(y[vi])
                y[vi] = T.min(x[vi], c[()])
