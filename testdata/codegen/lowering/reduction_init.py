# RUN: --emit=lowered --target=x86-64-v3
# A reduction block's init becomes a store guarded by the first iteration of its reduction loop,
# the block's iterator bindings are substituted, and 2-D buffers are flattened to row-major
# offsets.
# CHECK: def gemm(A: T.Buffer((T.int64(120),), "float32"), B: T.Buffer((T.int64(160),), "float32"), C: T.Buffer((T.int64(192),), "float32")):
# CHECK-NOT: T.block
# CHECK: for i, j, k in T.grid(12, 16, 10):
# CHECK-NEXT: if k == 0:
# CHECK-NEXT: C[T.Cast("int64", i) * T.int64(16) + T.Cast("int64", j)] = T.float32(0.0)
# CHECK-NEXT: C[T.Cast("int64", i) * T.int64(16) + T.Cast("int64", j)] = C[T.Cast("int64", i) * T.int64(16) + T.Cast("int64", j)] + A[T.Cast("int64", i) * T.int64(10) + T.Cast("int64", k)] * B[T.Cast("int64", k) * T.int64(16) + T.Cast("int64", j)]
@I.ir_module
class Module:
    @T.prim_func
    def gemm(A: T.Buffer((12, 10), "float32"), B: T.Buffer((10, 16), "float32"), C: T.Buffer((12, 16), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j, k in T.grid(12, 16, 10):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
