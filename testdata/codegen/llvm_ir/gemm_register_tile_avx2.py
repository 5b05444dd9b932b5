# RUN: --emit=llvm --target=x86-64-v3 --passes=default-schedule
# The default GEMM rule on AVX2 (16 ymm registers): a 6 x 16 register tile, six accumulators of
# two ymm registers each (12 of 16), updated by fused multiply-adds of a broadcast element of A
# and a 16-column row of B's panel; the panel (16 columns x 40 k) packed on the task's stack; the
# four column panels are the tasks of the parallel launch.
# CHECK: declare <16 x float> @llvm.fmuladd.v16f32
# CHECK: define internal void @gemm_impl_par0
# CHECK-NEXT: entry:
# CHECK-NEXT: alloca [640 x float], align 64
# CHECK: phi <16 x float> [ zeroinitializer
# CHECK: phi <16 x float> [ zeroinitializer
# CHECK: phi <16 x float> [ zeroinitializer
# CHECK: phi <16 x float> [ zeroinitializer
# CHECK: phi <16 x float> [ zeroinitializer
# CHECK: phi <16 x float> [ zeroinitializer
# CHECK-NOT: phi <16 x float> [ zeroinitializer
# CHECK: call reassoc nsz arcp contract afn <16 x float> @llvm.fmuladd.v16f32(
# CHECK: define noundef i32 @__mlc_kernel_gemm(
# CHECK: (ptr nonnull @gemm_impl_par0, ptr nonnull %1, i64 4)
@I.ir_module
class Module:
    @T.prim_func
    def gemm(A: T.Buffer((48, 40), "float32"), B: T.Buffer((40, 64), "float32"), C: T.Buffer((48, 64), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j, k in T.grid(48, 64, 40):
            with T.block("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
