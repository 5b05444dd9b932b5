# from tvm.script import ir as I
# from tvm.script import tir as T

@I.ir_module
class Module:
    @T.prim_func
    def linear0(X: T.Buffer((T.int64(784),), "float32"), W: T.Buffer((T.int64(100352),), "float32"), B: T.Buffer((T.int64(128),), "float32"), Z: T.Buffer((T.int64(128),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        Y = T.allocate((T.int64(128),), "float32")
        for j, k in T.grid(128, 784):
            if k == 0:
                Y[T.Cast("int64", j)] = T.float32(0.0)
            Y[T.Cast("int64", j)] = Y[T.Cast("int64", j)] + X[T.Cast("int64", k)] * W[T.Cast("int64", j) * T.int64(784) + T.Cast("int64", k)]
        for j in range(128):
            Z[T.Cast("int64", j)] = Y[T.Cast("int64", j)] + B[T.Cast("int64", j)]

    @T.prim_func
    def linear1(X: T.Buffer((T.int64(128),), "float32"), W: T.Buffer((T.int64(1280),), "float32"), B: T.Buffer((T.int64(10),), "float32"), Z: T.Buffer((T.int64(10),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        Y = T.allocate((T.int64(10),), "float32")
        for j, k in T.grid(10, 128):
            if k == 0:
                Y[T.Cast("int64", j)] = T.float32(0.0)
            Y[T.Cast("int64", j)] = Y[T.Cast("int64", j)] + X[T.Cast("int64", k)] * W[T.Cast("int64", j) * T.int64(128) + T.Cast("int64", k)]
        for j in range(10):
            Z[T.Cast("int64", j)] = Y[T.Cast("int64", j)] + B[T.Cast("int64", j)]

    @T.prim_func
    def relu0(X: T.Buffer((T.int64(128),), "float32"), Y: T.Buffer((T.int64(128),), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for j in range(128):
            Y[T.Cast("int64", j)] = T.max(X[T.Cast("int64", j)], T.float32(0.0))
