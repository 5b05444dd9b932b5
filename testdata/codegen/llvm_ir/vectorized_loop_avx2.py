# RUN: --emit=llvm --target=x86-64-v3
# A loop marked vectorized over 8 float32 lanes becomes one 256-bit vector operation per
# iteration of the loop around it on AVX2 (no scalar loop left for the 8 lanes).
# CHECK: define noundef i32 @__mlc_kernel_add(
# CHECK-NOT: fadd reassoc nsz arcp contract afn float
# CHECK: load <8 x float>
# CHECK: fadd reassoc nsz arcp contract afn <8 x float>
# CHECK: store <8 x float>
# CHECK: ret i32 0
@I.ir_module
class Module:
    @T.prim_func
    def add(A: T.Buffer((64, 8), "float32"), B: T.Buffer((64, 8), "float32"), C: T.Buffer((64, 8), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i in range(64):
            for j in T.vectorized(8):
                with T.block("C"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi, vj] = A[vi, vj] + B[vi, vj]
