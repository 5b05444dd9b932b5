# RUN: --emit=llvm --target=x86-64-v4 --passes=default-schedule
# The same GEMM for AVX-512 (32 zmm registers): an 8 x 32 register tile, eight accumulators of
# two zmm registers each (16 of 32), the panel 32 columns x 40 k, two column panels as tasks.
# CHECK: declare <32 x float> @llvm.fmuladd.v32f32
# CHECK: define internal void @gemm_impl_par0
# CHECK-NEXT: entry:
# CHECK-NEXT: alloca [1280 x float], align 64
# CHECK: phi <32 x float> [ zeroinitializer
# CHECK: phi <32 x float> [ zeroinitializer
# CHECK: phi <32 x float> [ zeroinitializer
# CHECK: phi <32 x float> [ zeroinitializer
# CHECK: phi <32 x float> [ zeroinitializer
# CHECK: phi <32 x float> [ zeroinitializer
# CHECK: phi <32 x float> [ zeroinitializer
# CHECK: phi <32 x float> [ zeroinitializer
# CHECK-NOT: phi <32 x float> [ zeroinitializer
# CHECK: call reassoc nsz arcp contract afn <32 x float> @llvm.fmuladd.v32f32(
# CHECK: define noundef i32 @__mlc_kernel_gemm(
# CHECK: (ptr nonnull @gemm_impl_par0, ptr nonnull %1, i64 2)
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
