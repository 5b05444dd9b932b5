# The seeds chapter's first layer: Y = X @ W^T for X (64, 784) and W (128, 784), float32.
@I.ir_module
class Module:
    @T.prim_func
    def dense(X: T.Buffer((64, 784), "float32"), W: T.Buffer((128, 784), "float32"), Y: T.Buffer((64, 128), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j, k in T.grid(64, 128, 784):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0.0)
                Y[vi, vj] = Y[vi, vj] + X[vi, vk] * W[vj, vk]
