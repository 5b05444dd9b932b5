# mm_relu with its result zero-padded by one row on top and two columns on the right (the form a
# convolution fused with the next layer's nn.pad takes): Y = A @ B, P = pad(relu(Y)).
@tvm.script.ir_module
class MyModule:
    @T.prim_func
    def mm_relu_pad(A: T.Buffer[(16, 16), "float32"],
                    B: T.Buffer[(16, 16), "float32"],
                    P: T.Buffer[(17, 18), "float32"]):
        T.func_attr({"global_symbol": "mm_relu_pad", "tir.noalias": True})
        Y = T.alloc_buffer((16, 16), dtype="float32")
        for i, j, k in T.grid(16, 16, 16):
            with T.block("Y"):
                vi = T.axis.spatial(16, i)
                vj = T.axis.spatial(16, j)
                vk = T.axis.reduce(16, k)
                with T.init():
                    Y[vi, vj] = T.float32(0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(17, 18):
            with T.block("P"):
                vi = T.axis.spatial(17, i)
                vj = T.axis.spatial(18, j)
                P[vi, vj] = T.Select(vi - 1 >= 0 and vj < 16, T.max(Y[T.max(vi - 1, 0), T.min(vj, 15)], T.float32(0)), T.float32(0))
