# RUN: --emit=lowered --target=x86-64-v3
# An intermediate that only the blocks under one row of a parallel loop touch (a convolution's
# data packed per tile) is allocated inside the parallel loop, one row's region per thread, even
# where the innermost loop both blocks share has one iteration (a tile as wide as the row): the
# row loop above it bounds the region. Kept whole, both threads wrote one buffer. (C reads the
# row reversed, so that P is not computed in C instead.)
# CHECK: for p in T.parallel(2):
# CHECK-NEXT: P = T.allocate((T.int64(8),), "float32")
# CHECK-NEXT: for r in range(4):
# CHECK: P[T.Cast("int64", j)] = A[
# CHECK: = P[T.Cast("int64", j) * T.int64(-1) + T.int64(7)] + T.float32(1.0)
@I.ir_module
class Module:
    @T.prim_func
    def pack_rows(A: T.Buffer((2, 4, 8), "float32"), C: T.Buffer((2, 4, 8), "float32")):
        T.func_attr({"tir.noalias": T.bool(True)})
        P = T.alloc_buffer((2, 4, 8), "float32")
        for p in T.parallel(2):
            for r in range(4):
                for u in range(1):
                    for j in range(8):
                        with T.block("P"):
                            vp = T.axis.spatial(2, p)
                            vr = T.axis.spatial(4, r)
                            vj = T.axis.spatial(8, u * 8 + j)
                            P[vp, vr, vj] = A[vp, vr, vj] * T.float32(2.0)
                    for j in range(8):
                        with T.block("C"):
                            vp = T.axis.spatial(2, p)
                            vr = T.axis.spatial(4, r)
                            vj = T.axis.spatial(8, u * 8 + j)
                            C[vp, vr, vj] = P[vp, vr, 7 - vj] + T.float32(1.0)
