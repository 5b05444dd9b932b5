# RUN: --emit=llvm --target=x86-64-v4
# A bias-and-ReLU epilogue over 8 x 14 x 28 pixels of 16 channels (a DenseNet layer's): the
# innermost loop is LLVM's to unroll, but the loops around it stay loops (unroll.disable: whole
# they would copy the body 392 and 3136 times), where LLVM unrolled them all into one block of
# 3136 vectors that took 12 s to schedule (codegen_llvm.cc, kMaxUnrolledNestBodies). A nest
# with few bodies (2 x 3 here) is still LLVM's to unroll: no metadata on it.
# CHECK: define noundef i32 @__mlc_kernel_bias_relu(
# CHECK: label %for.h.preheader.i, !llvm.loop
# CHECK: label %for.w.preheader.i, !llvm.loop
# CHECK: !{!"llvm.loop.unroll.disable"}
# CHECK: define noundef i32 @__mlc_kernel_small_nest(
# CHECK-NOT: br i1
# CHECK-NOT: llvm.loop.unroll.disable
@I.ir_module
class Module:
    @T.prim_func
    def bias_relu(x: T.Buffer((8, 14, 28, 16), "float32"), b: T.Buffer((8, 16), "float32"), y: T.Buffer((8, 14, 28, 16), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for c, h, w in T.grid(8, 14, 28):
            for l in T.vectorized(16):
                with T.block("y"):
                    vc, vh, vw, vl = T.axis.remap("SSSS", [c, h, w, l])
                    y[vc, vh, vw, vl] = T.max(x[vc, vh, vw, vl] + b[vc, vl], T.float32(0))

    @T.prim_func
    def small_nest(x: T.Buffer((2, 3, 16), "float32"), y: T.Buffer((2, 3, 16), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j in T.grid(2, 3):
            for l in T.vectorized(16):
                with T.block("y"):
                    vi, vj, vl = T.axis.remap("SSS", [i, j, l])
                    y[vi, vj, vl] = x[vi, vj, vl] * T.float32(2)
