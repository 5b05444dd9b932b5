# MODULE: gemm.py
# A 4 x 16 register tile over all of k, computed by the gemm_f32 intrinsic.
sch = tir.Schedule(mod)
c = sch.get_block("C")
i, j, k = sch.get_loops(c)
i0, i1 = sch.split(i, factors=[None, 4])
j0, j1 = sch.split(j, factors=[None, 16])
sch.reorder(i0, j0, i1, j1, k)
init = sch.decompose_reduction(c, i1)
sch.tensorize(i1, "gemm_f32")
