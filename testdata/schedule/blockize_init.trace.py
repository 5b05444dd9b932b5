# MODULE: gemm.py
# A block with its init blockizes when the whole reduction is inside: the new block computes
# whole results (it is spatial), and its body keeps the init.
sch = tir.Schedule(mod)
c = sch.get_block("C")
i, j, k = sch.get_loops(c)
i0, i1 = sch.split(i, factors=[None, 4])
j0, j1 = sch.split(j, factors=[None, 16])
sch.reorder(i0, j0, i1, j1, k)
outer = sch.blockize(i1)
