# MODULE: matmul_odd.py
# ERROR: tensorize: blockize: loop i_1 of block Y_update: the domain of vi is not a multiple of 4
sch = tir.Schedule(mod)
y = sch.get_block("Y", func_name="mm")
i, j, k = sch.get_loops(y)
i0, i1 = sch.split(i, factors=[None, 4])
j0, j1 = sch.split(j, factors=[None, 16])
sch.reorder(i0, j0, i1, j1, k)
init = sch.decompose_reduction(y, i1)
sch.tensorize(i1, "gemm_f32")
