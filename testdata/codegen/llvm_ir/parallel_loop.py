# RUN: --emit=llvm --target=x86-64-v3
# A parallel loop's body becomes a function of its own, which the kernel hands to the runtime's
# thread pool through __mlc_parallel_launch (vm/kernel_abi.h) with the loop's extent. Only when the
# loop stores enough (codegen::kMinParallelIterations, 16384 stores; this one 256 x 128): the
# smaller one runs serially, a launch and join costing more than its work.
# CHECK: define internal void @row_sum_impl_par0(ptr nocapture readonly %0, i64 %1, i64 %2)
# CHECK: define noundef i32 @__mlc_kernel_row_sum(
# CHECK: load ptr, ptr @__mlc_parallel_launch
# CHECK-NEXT: (ptr nonnull @row_sum_impl_par0, ptr nonnull %1, i64 256)
# CHECK-NOT: load ptr, ptr @__mlc_parallel_launch
# CHECK: define noundef i32 @__mlc_kernel_small_row_sum(
# CHECK-NOT: load ptr, ptr @__mlc_parallel_launch
# CHECK: ret i32 0
@I.ir_module
class Module:
    @T.prim_func
    def row_sum(A: T.Buffer((256, 128), "float32"), S: T.Buffer((256,), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in T.parallel(256):
            for k in range(128):
                with T.block("S"):
                    vi, vk = T.axis.remap("SR", [i, k])
                    with T.init():
                        S[vi] = T.float32(0.0)
                    S[vi] = S[vi] + A[vi, vk]

    @T.prim_func
    def small_row_sum(A: T.Buffer((96, 40), "float32"), S: T.Buffer((96,), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in T.parallel(96):
            for k in range(40):
                with T.block("S"):
                    vi, vk = T.axis.remap("SR", [i, k])
                    with T.init():
                        S[vi] = T.float32(0.0)
                    S[vi] = S[vi] + A[vi, vk]
