# MODULE: gemm.py
# The GEMM accumulates into a local copy, written back per 8 x 16 tile.
sch = tir.Schedule(mod)
c = sch.get_block("C")
c_local = sch.cache_write(c, 0, "local")
i, j, k = sch.get_loops(c)
i0, i1 = sch.split(i, factors=[None, 8])
j0, j1 = sch.split(j, factors=[None, 16])
sch.reorder(i0, j0, k, i1, j1)
sch.reverse_compute_at(c_local, j0)
