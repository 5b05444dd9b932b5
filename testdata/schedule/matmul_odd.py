# A matmul with a ReLU on odd shapes (37 x 33 @ 33 x 129): splits leave remainders.
@I.ir_module
class Module:
    @T.prim_func
    def mm(A: T.Buffer((37, 33), "float32"), B: T.Buffer((33, 129), "float32"), C: T.Buffer((37, 129), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        Y = T.alloc_buffer((37, 129))
        for i, j, k in T.grid(37, 129, 33):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0.0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(37, 129):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0.0))
