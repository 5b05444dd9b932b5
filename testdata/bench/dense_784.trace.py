# MODULE: dense_784.py
# REFERENCE: dense
# Y = X @ W^T at batch 64: W is packed into 16-row panels (W^T's columns, contiguous per k),
# each by the thread that uses it; X into 4-row panels once. k is split in two so a W panel
# slice (392 x 16 floats, 25 KB) stays in L1 while all 16 row tiles of X pass over it.
sch = tir.Schedule(mod)
y = sch.get_block("Y")
i, j, k = sch.get_loops(y)
i0, i1 = sch.split(i, factors=[None, 4])
j0, j1 = sch.split(j, factors=[None, 16])
k0, k1 = sch.split(k, factors=[None, 392])
sch.reorder(j0, k0, i0, i1, j1, k1)
w = sch.cache_read(y, 1, "global")
sch.transform_layout(y, ("read", 1), lambda j, k: (j // 16, k, j % 16))
sch.compute_at(w, j0)
_, wj, wk = sch.get_loops(w)
sch.reorder(wk, wj)
sch.vectorize(wj)
x = sch.cache_read(y, 0, "global")
sch.transform_layout(y, ("read", 0), lambda i, k: (i // 4, k, i % 4))
xi, xk = sch.get_loops(x)
xi0, xi1 = sch.split(xi, factors=[None, 4])
sch.reorder(xi0, xk, xi1)
sch.parallel(xi0)
init = sch.decompose_reduction(y, k0)
sch.tensorize(i1, "gemm_f32")
sch.parallel(j0)
