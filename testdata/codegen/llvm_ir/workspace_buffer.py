# RUN: --emit=llvm --target=x86-64-v3
# An intermediate buffer above kernel_abi::kMaxStackBytes (32 KiB; this one is 64 KiB) is taken
# from the runtime's workspace pool and given back, not put on the kernel's stack (the transposed
# read keeps LLVM from forwarding the first nest's values into the second).
# CHECK: define noundef i32 @__mlc_kernel_twice_transposed(
# CHECK-NOT: alloca
# CHECK: load ptr, ptr @__mlc_workspace_alloc
# CHECK-NEXT: (i64 65536)
# CHECK: load ptr, ptr @__mlc_workspace_free
# CHECK: ret i32 0
@I.ir_module
class Module:
    @T.prim_func
    def twice_transposed(A: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        Y = T.alloc_buffer((128, 128), "float32")
        for i, j in T.grid(128, 128):
            with T.block("Y"):
                vi, vj = T.axis.remap("SS", [i, j])
                Y[vi, vj] = A[vi, vj] * T.float32(2.0)
        for i, j in T.grid(128, 128):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = Y[vj, vi] + T.float32(1.0)
