# MODULE: gemm.py
# Tensorized with its init (the tile holds the whole reduction): T.gemm_tile_nd writes the sums
# (flag 2) instead of adding them to C, so no init pass runs before it.
sch = tir.Schedule(mod)
c = sch.get_block("C")
i, j, k = sch.get_loops(c)
i0, i1 = sch.split(i, factors=[None, 4])
j0, j1 = sch.split(j, factors=[None, 16])
sch.reorder(i0, j0, i1, j1, k)
sch.tensorize(i1, "gemm_f32")
