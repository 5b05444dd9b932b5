# The seeds' MLP with a symbolic batch: one module (and one executable) for every batch size n.
# from tvm.script import ir as I
# from tvm.script import tir as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def linear0(x: T.handle, W: T.Buffer((128, 784), "float32"), B: T.Buffer((128,), "float32"), z: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        X = T.match_buffer(x, (n, 784), "float32")
        Z = T.match_buffer(z, (n, 128), "float32")
        Y = T.alloc_buffer((n, 128))
        for i, j, k in T.grid(n, 128, 784):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0.0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(n, 128):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @T.prim_func
    def linear1(x: T.handle, W: T.Buffer((10, 128), "float32"), B: T.Buffer((10,), "float32"), z: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        m = T.int64()
        X = T.match_buffer(x, (m, 128), "float32")
        Z = T.match_buffer(z, (m, 10), "float32")
        Y = T.alloc_buffer((m, 10))
        for i, j, k in T.grid(m, 10, 128):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0.0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
        for i, j in T.grid(m, 10):
            with T.block("Z"):
                vi, vj = T.axis.remap("SS", [i, j])
                Z[vi, vj] = Y[vi, vj] + B[vj]

    @T.prim_func
    def relu0(x: T.handle, y: T.handle):
        T.func_attr({"tir.noalias": T.bool(True)})
        n = T.int64()
        X = T.match_buffer(x, (n, 128), "float32")
        Y = T.match_buffer(y, (n, 128), "float32")
        for i, j in T.grid(n, 128):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = T.max(X[vi, vj], T.float32(0.0))

    @R.function
    def main(x: R.Tensor(("n", 784), dtype="float32"), w0: R.Tensor((128, 784), dtype="float32"), b0: R.Tensor((128,), dtype="float32"), w1: R.Tensor((10, 128), dtype="float32"), b1: R.Tensor((10,), dtype="float32")) -> R.Tensor(("n", 10), dtype="float32"):
        n = T.int64()
        cls = Module
        with R.dataflow():
            lv0 = R.call_tir(cls.linear0, (x, w0, b0), out_sinfo=R.Tensor((n, 128), dtype="float32"))
            lv1 = R.call_tir(cls.relu0, (lv0,), out_sinfo=R.Tensor((n, 128), dtype="float32"))
            out = R.call_tir(cls.linear1, (lv1, w1, b1), out_sinfo=R.Tensor((n, 10), dtype="float32"))
            R.output(out)
        return out
