# MODULE: matmul_1024.py
# REFERENCE: matmul
# C = A @ B on 1024^3: A packed into 4-row panels and B into 16-column panels (each read by
# the micro-kernel contiguously), a 4 x 16 register tile over all of k (T.gemm_tile: 8 vector
# accumulators), 64-row blocks of C in parallel. The packed A panel of a block (64 x 1024,
# 256 KB) stays in L2 while the block sweeps all of B.
sch = tir.Schedule(mod)
c = sch.get_block("C")
i, j, k = sch.get_loops(c)
i0, i1, i2 = sch.split(i, factors=[None, 16, 4])
j0, j1 = sch.split(j, factors=[None, 16])
sch.reorder(i0, j0, i1, i2, j1, k)
a = sch.cache_read(c, 0, "global")
sch.transform_layout(c, ("read", 0), lambda i, k: (i // 4, k, i % 4))
ai, ak = sch.get_loops(a)
ai0, ai1 = sch.split(ai, factors=[None, 4])
sch.reorder(ai0, ak, ai1)
sch.parallel(ai0)
b = sch.cache_read(c, 1, "global")
sch.transform_layout(c, ("read", 1), lambda k, j: (j // 16, k, j % 16))
bk, bj = sch.get_loops(b)
bj0, bj1 = sch.split(bj, factors=[None, 16])
sch.reorder(bj0, bk, bj1)
sch.vectorize(bj1)
sch.parallel(bj0)
init = sch.decompose_reduction(c, j0)
sch.tensorize(i2, "gemm_f32")
sch.parallel(i0)
