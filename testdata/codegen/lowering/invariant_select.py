# RUN: --emit=lowered --target=x86-64-v3
# A concatenation fused with its consumer picks its source by channel. The select's condition
# holds or fails for all the pixels of a channel, so it is decided once per channel, outside
# the loops over the pixels: each branch loads from one source only. A condition that changes
# with the innermost index stays a select per element, and so does one fixed only over a single
# vector's lanes (16 channels of a pixel), where a branch per pixel costs more than the blend.
# CHECK: for c in range(5):
# CHECK-NEXT: if c < 2:
# CHECK-NEXT: for h, w in T.grid(4, 16):
# CHECK-NOT: T.Select
# CHECK-NOT: B[
# CHECK: else:
# CHECK-NEXT: for h, w in T.grid(4, 16):
# CHECK-NOT: T.Select
# CHECK-NOT: A[
# CHECK: def padded_pixels
# CHECK-NOT: if
# CHECK: T.Select
# CHECK: def scaled_rows
# CHECK: T.Select
@I.ir_module
class Module:
    @T.prim_func
    def concat_relu(A: T.Buffer((2, 4, 16), "float32"), B: T.Buffer((3, 4, 16), "float32"), C: T.Buffer((5, 4, 16), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for c, h, w in T.grid(5, 4, 16):
            with T.block("C"):
                vc, vh, vw = T.axis.remap("SSS", [c, h, w])
                C[vc, vh, vw] = T.max(T.Select(vc < 2, A[T.min(vc, 1), vh, vw], B[T.max(vc - 2, 0), vh, vw]), T.float32(0.0))

    @T.prim_func
    def scaled_rows(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
        # The condition changes with the innermost index: it stays a select per element.
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j in T.grid(4, 8):
            with T.block("C"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = T.Select(vj < 4, A[vi, vj], A[vi, vj] * T.float32(2.0))

    @T.prim_func
    def padded_pixels(A: T.Buffer((4, 7, 16), "float32"), C: T.Buffer((4, 8, 16), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        for i, j, l in T.grid(4, 8, 16):
            with T.block("C"):
                vi, vj, vl = T.axis.remap("SSS", [i, j, l])
                C[vi, vj, vl] = T.Select(vj >= 1, A[vi, T.max(vj - 1, 0), vl], T.float32(0.0))
