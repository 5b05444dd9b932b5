# MODULE: gemm.py
sch = tir.Schedule(mod)
c = sch.get_block("C")
i, j, k = sch.get_loops(c)
i0, i1 = sch.split(i, factors=[None, 4])
j0, j1 = sch.split(j, factors=[None, 16])
sch.reorder(i0, j0, k, i1, j1)
init = sch.decompose_reduction(c, k)
outer = sch.blockize(i1)
