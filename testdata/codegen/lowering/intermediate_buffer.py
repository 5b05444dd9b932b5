# RUN: --emit=lowered --target=x86-64-v3
# A buffer allocated inside a function (the matmul's result before the ReLU) becomes a flat
# allocation of the function; both nests read and write it through row-major offsets.
# CHECK: def mm_relu(A: T.Buffer((T.int64(48),), "float32"), B: T.Buffer((T.int64(24),), "float32"), C: T.Buffer((T.int64(32),), "float32")):
# CHECK: Y = T.allocate((T.int64(32),), "float32")
# CHECK-NEXT: for i, j, k in T.grid(8, 4, 6):
# CHECK: Y[T.Cast("int64", i) * T.int64(4) + T.Cast("int64", j)] = Y[T.Cast("int64", i) * T.int64(4) + T.Cast("int64", j)] + A[
# CHECK-NEXT: for i, j in T.grid(8, 4):
# CHECK-NEXT: C[T.Cast("int64", i) * T.int64(4) + T.Cast("int64", j)] = T.max(Y[T.Cast("int64", i) * T.int64(4) + T.Cast("int64", j)], T.float32(0.0))
@I.ir_module
class Module:
    @T.prim_func
    def mm_relu(A: T.Buffer((8, 6), "float32"), B: T.Buffer((6, 4), "float32"), C: T.Buffer((8, 4), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        Y = T.alloc_buffer((8, 4), "float32")
        for i, j, k in T.grid(8, 4, 6):
            with T.block("Y"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    Y[vi, vj] = T.float32(0.0)
                Y[vi, vj] = Y[vi, vj] + A[vi, vk] * B[vk, vj]
        for i, j in T.grid(8, 4):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.max(Y[vi, vj], T.float32(0.0))
